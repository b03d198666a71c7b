package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

// RecallInput is memory_recall's input.
type RecallInput struct {
	Query           string        `json:"query,omitempty" jsonschema:"what you want to know, in natural language (required unless key is given)"`
	Key             string        `json:"key,omitempty" jsonschema:"recall what was learnt under this key (e.g. deploy/staging-target); searches when nothing has it"`
	K               int           `json:"k,omitempty" jsonschema:"how many memories (default: the server's, 9); k are returned when k match"`
	PerDomain       int           `json:"per_domain,omitempty" jsonschema:"each domain's best this many are placed before any domain's further ones (default: the server's, 3); spreads the answer over the domains, never shortens it"`
	Namespace       string        `json:"namespace,omitempty" jsonschema:"project namespace (default: the connection's); default is always included"`
	Domains         []string      `json:"domains,omitempty" jsonschema:"only these domains: tool-usage, user-preferences, general"`
	Types           []memory.Type `json:"types,omitempty" jsonschema:"only these memory types"`
	Tags            []string      `json:"tags,omitempty" jsonschema:"only memories with these tags"`
	IncludeArchived bool          `json:"include_archived,omitempty" jsonschema:"also search archived memories"`
	// Superseded memories are listed for their history; like archived ones
	// they never go into the context block.
	IncludeSuperseded bool `json:"include_superseded,omitempty" jsonschema:"also list superseded memories (older versions of facts, replaced by newer ones)"`
	// Quarantined memories (suspected prompt injection) are listed for
	// review; they never go into the context block either.
	IncludeQuarantined bool   `json:"include_quarantined,omitempty" jsonschema:"also list quarantined memories (kept, but suspected of prompt injection; never put in the context block)"`
	FilePath           string `json:"file_path,omitempty" jsonschema:"the file being worked on: memories scoped to other files are left out"`
	Expand             *bool  `json:"expand,omitempty" jsonschema:"also search alternative phrasings written by the server's LLM (default: only when the first pass is weak)"`
	Rerank             *bool  `json:"rerank,omitempty" jsonschema:"have the server's LLM rerank the best memories (default: the server's setting)"`
	AsOf               string `json:"as_of,omitempty" jsonschema:"RFC 3339 time the question is asked at (default now): recency and words like 'last week' are read from it; given, recall answers what was true then (the versions valid at it, superseded since or not)"`
	KnownAt            string `json:"known_at,omitempty" jsonschema:"RFC 3339 time: answer from what Recollect knew then (record time)"`
}

// RecallOutput is the ranked memories and the prompt block.
type RecallOutput struct {
	Context  string        `json:"context" jsonschema:"the Recalled Context block, ready for a prompt"`
	Memories []MemoryBrief `json:"memories" jsonschema:"most relevant first"`
}

func (t *tools) recall(ctx context.Context, req *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, RecallOutput, error) {
	var asOf, knownAt client.Instant
	for _, tv := range []struct {
		field, v string
		to       *client.Instant
	}{{"as_of", in.AsOf, &asOf}, {"known_at", in.KnownAt, &knownAt}} {
		if tv.v == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339, tv.v)
		if err != nil {
			return nil, RecallOutput{}, fmt.Errorf("invalid %s: must be an RFC 3339 time such as 2023-05-07T18:30:00Z (got %q)", tv.field, tv.v)
		}
		*tv.to = client.At(at)
	}
	resp, err := t.clientFor(req).Recall(ctx, client.RecallRequest{Query: in.Query, Key: in.Key, K: in.K, PerDomain: in.PerDomain, Namespace: in.Namespace, Expand: in.Expand, Rerank: in.Rerank, AsOf: asOf, KnownAt: knownAt,
		Filters: client.RecallFilters{Domains: in.Domains, Types: in.Types, Tags: in.Tags, IncludeArchived: in.IncludeArchived,
			IncludeSuperseded: in.IncludeSuperseded, IncludeQuarantined: in.IncludeQuarantined, FilePath: in.FilePath}})
	if err != nil {
		return nil, RecallOutput{}, explain(err)
	}
	out := RecallOutput{Context: resp.Context, Memories: make([]MemoryBrief, len(resp.Memories))}
	var b strings.Builder
	if len(resp.Memories) == 0 {
		b.WriteString("No memories match.")
	} else {
		b.WriteString(strings.TrimSpace(resp.Context))
		b.WriteString("\n\nMemories, most relevant first (id: content):\n")
	}
	for i, r := range resp.Memories {
		out.Memories[i] = brief(r.Memory)
		out.Memories[i].Score = r.Score
		how := fmt.Sprintf("score %.2f", r.Score)
		if r.KeyMatch {
			how = "key " + r.Memory.Key
		}
		fmt.Fprintf(&b, "%d. %s: %s [%s/%s, %s]\n", i+1, r.Memory.ID, r.Memory.Content, r.Memory.Domain, r.Memory.Type, how)
	}
	return text(strings.TrimSpace(b.String())), out, nil
}

// ResumeInput is memory_resume's input.
type ResumeInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the session being resumed"`
	Namespace string `json:"namespace,omitempty" jsonschema:"project namespace (default: the connection's)"`
}

// ResumeOutput is the session-recovery summary.
type ResumeOutput struct {
	Text     string               `json:"text"`
	Core     []MemoryBrief        `json:"core"`
	Recent   []MemoryBrief        `json:"recent"`
	Topics   []client.ResumeTopic `json:"topics"`
	Triggers []string             `json:"triggers"`
}

func (t *tools) resume(ctx context.Context, req *mcp.CallToolRequest, in ResumeInput) (*mcp.CallToolResult, ResumeOutput, error) {
	resp, err := t.clientFor(req).Resume(ctx, client.ResumeRequest{SessionID: in.SessionID, Namespace: in.Namespace})
	if err != nil {
		return nil, ResumeOutput{}, explain(err)
	}
	out := ResumeOutput{Text: resp.Text, Core: briefs(resp.Core), Recent: briefs(resp.Recent), Topics: resp.Topics, Triggers: resp.Triggers}
	if out.Text == "" {
		out.Text = "Nothing to resume yet."
	}
	return text(out.Text), out, nil
}

// StatsInput is memory_stats's input (none).
type StatsInput struct{}

// StatsOutput counts the tenant's memories.
type StatsOutput struct {
	Tenant   string `json:"tenant"`
	Memories int    `json:"memories"`
	Archived int    `json:"archived"`
	// Superseded counts older versions of facts, kept for their history.
	Superseded int            `json:"superseded"`
	Domains    map[string]int `json:"domains"`
	Types      map[string]int `json:"types"`
	Kinds      map[string]int `json:"kinds"`
	Layers     map[string]int `json:"layers"`
	Chars      int            `json:"chars"`
	Tokens     int            `json:"tokens" jsonschema:"approximate: characters / 4"`
}

func (t *tools) stats(ctx context.Context, req *mcp.CallToolRequest, _ StatsInput) (*mcp.CallToolResult, StatsOutput, error) {
	s, err := t.clientFor(req).Stats(ctx, "")
	if err != nil {
		return nil, StatsOutput{}, explain(err)
	}
	out := StatsOutput{Tenant: s.Tenant, Memories: s.Memories, Archived: s.Archived, Superseded: s.Superseded, Domains: nonNil(s.Domains), Types: nonNil(s.Types),
		Kinds: nonNil(s.Kinds), Layers: nonNil(s.Layers), Chars: s.Chars, Tokens: (s.Chars + 3) / 4}
	txt := fmt.Sprintf("%d memories (%d archived, %d superseded), about %d tokens.\nby domain: %s\nby type: %s\nby layer: %s",
		out.Memories, out.Archived, out.Superseded, out.Tokens, counts(out.Domains), counts(out.Types), counts(out.Layers))
	return text(txt), out, nil
}

// ConsolidateInput is memory_consolidate's input (none).
type ConsolidateInput struct{}

// ConsolidateOutput names the requested epoch.
type ConsolidateOutput struct {
	Status string `json:"status" jsonschema:"requested: the epoch runs in the background"`
	Epoch  string `json:"epoch"`
	// TooYoung is how many buffer memories this epoch leaves untriaged:
	// they are younger than the server's triage minimum age.
	TooYoung int `json:"too_young" jsonschema:"buffer memories younger than the server's triage minimum age (default 10 minutes), left for a later epoch"`
}

func (t *tools) consolidate(ctx context.Context, req *mcp.CallToolRequest, _ ConsolidateInput) (*mcp.CallToolResult, ConsolidateOutput, error) {
	resp, err := t.clientFor(req).Consolidate(ctx, query.ConsolidateRequest{})
	if err != nil {
		return nil, ConsolidateOutput{}, explain(err)
	}
	msg := "Consolidation epoch " + resp.Epoch + " requested; it runs in the background."
	if resp.TooYoung > 0 {
		msg += fmt.Sprintf(" %d buffer memories are younger than %s and wait for a later epoch's triage.", resp.TooYoung,
			time.Duration(resp.TriageMinAgeSeconds*float64(time.Second)))
	}
	return text(msg), ConsolidateOutput{Status: "requested", Epoch: resp.Epoch, TooYoung: resp.TooYoung}, nil
}

// nonNil keeps the structured output valid: a JSON object, never null.
func nonNil(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// counts renders a count map as "a 3, b 1", largest first.
func counts(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
