package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
)

// tools holds what the tool handlers share.
type tools struct {
	client *client.Client
}

// register adds every tool to s.
func (t *tools) register(s *mcp.Server) {
	no := false
	yes := true
	mcp.AddTool(s, &mcp.Tool{Name: "memory_learn", InputSchema: inputSchema[LearnInput](),
		Description: "Remember a durable fact: a preference, rule, decision, pitfall, architecture note or fact worth keeping across sessions. " +
			"Stored asynchronously; recallable a few seconds later.",
		Annotations: &mcp.ToolAnnotations{Title: "Learn", DestructiveHint: &no, OpenWorldHint: &no}}, strictArgs(t.learn))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_episode", InputSchema: inputSchema[EpisodeInput](),
		Description: "Record an episode: something that happened, with its outcome (success, failure, partial) and tags, to learn from later.",
		Annotations: &mcp.ToolAnnotations{Title: "Record episode", DestructiveHint: &no, OpenWorldHint: &no}}, strictArgs(t.episode))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_procedure", InputSchema: inputSchema[ProcedureInput](),
		Description: "Save a named workflow with its steps in order (e.g. how to release, how to run the tests), to repeat it later.",
		Annotations: &mcp.ToolAnnotations{Title: "Save procedure", DestructiveHint: &no, OpenWorldHint: &no}}, strictArgs(t.procedure))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_recall", InputSchema: inputSchema[RecallInput](),
		Description: "Search long-term memory: the memories most relevant to the query, ranked, and a prompt-ready Recalled Context block. " +
			"Filter by domain, type or tag. Give a key to get what was learnt under it (falling back to a search when nothing was).",
		Annotations: &mcp.ToolAnnotations{Title: "Recall", ReadOnlyHint: true, OpenWorldHint: &no}}, strictArgs(t.recall))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_resume", InputSchema: inputSchema[ResumeInput](),
		Description: "Pick up where you left off: core memories, recent ones, the topic index and trigger tags, as one text. Call it at the start of a session.",
		Annotations: &mcp.ToolAnnotations{Title: "Resume", ReadOnlyHint: true, OpenWorldHint: &no}}, strictArgs(t.resume))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_topic", InputSchema: inputSchema[TopicInput](),
		Description: "Browse memory by topic: without ids, the topic index; with topic ids (from the index or memory_resume), those topics and their memories.",
		Annotations: &mcp.ToolAnnotations{Title: "Topics", ReadOnlyHint: true, OpenWorldHint: &no}}, strictArgs(t.topic))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_stats", InputSchema: inputSchema[StatsInput](),
		Description: "Count stored memories by domain, type, kind and layer, with their size in characters and approximate tokens.",
		Annotations: &mcp.ToolAnnotations{Title: "Stats", ReadOnlyHint: true, OpenWorldHint: &no}}, strictArgs(t.stats))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_consolidate", InputSchema: inputSchema[ConsolidateInput](),
		Description: "Ask for a consolidation epoch now: triage of new memories, promotion to core, supersession of updated facts (kept in history), merging of duplicates, decay, and archiving (never deleting) of stale ones. Runs in the background.",
		Annotations: &mcp.ToolAnnotations{Title: "Consolidate", DestructiveHint: &yes, OpenWorldHint: &no}}, strictArgs(t.consolidate))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_forget", InputSchema: inputSchema[ForgetInput](),
		Description: "Delete a memory by its id (from memory_recall), every memory with a key, or everything about a subject (an erasure request). Use it for facts that are wrong or no longer wanted.",
		Annotations: &mcp.ToolAnnotations{Title: "Forget", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}}, strictArgs(t.forget))
}
