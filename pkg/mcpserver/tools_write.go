package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

// LearnInput is memory_learn's input.
type LearnInput struct {
	Content    string      `json:"content" jsonschema:"the fact to remember, self-contained, in one or two sentences"`
	Type       memory.Type `json:"type,omitempty" jsonschema:"what it is (default fact); policy outranks workflow, pitfall and architecture, which outrank decision and preference"`
	Key        string      `json:"key,omitempty" jsonschema:"optional path-like key, e.g. deploy/target; memory_forget can delete by key"`
	Domain     string      `json:"domain,omitempty" jsonschema:"tool-usage, user-preferences or general (default)"`
	Importance *float64    `json:"importance,omitempty" jsonschema:"0 to 1; how much it matters"`
	Tags       []string    `json:"tags,omitempty" jsonschema:"short labels"`
	Scope      []string    `json:"scope,omitempty" jsonschema:"file globs it applies to, e.g. src/**/*.go"`
	Namespace  string      `json:"namespace,omitempty" jsonschema:"project namespace (default: the connection's); recall in a project also sees default"`
	Subject    string      `json:"subject,omitempty" jsonschema:"the user it is about, or __lore__ for shared knowledge"`
	SessionID  string      `json:"session_id,omitempty" jsonschema:"the current session"`
}

// LearnOutput is the answer of the write tools.
type LearnOutput struct {
	Status   string `json:"status" jsonschema:"accepted: queued, stored within seconds"`
	EventID  string `json:"event_id"`
	MemoryID string `json:"memory_id" jsonschema:"the id the memory has once stored"`
}

func learned(resp client.LearnResponse, what string) (*mcp.CallToolResult, LearnOutput, error) {
	out := LearnOutput{Status: "accepted", EventID: resp.ID, MemoryID: resp.MemoryID}
	return text(fmt.Sprintf("Accepted %s %s; it is stored and recallable within a few seconds.", what, resp.MemoryID)), out, nil
}

func (t *tools) learn(ctx context.Context, req *mcp.CallToolRequest, in LearnInput) (*mcp.CallToolResult, LearnOutput, error) {
	resp, err := t.clientFor(req).Learn(ctx, query.LearnRequest{Namespace: in.Namespace, Subject: in.Subject, SessionID: in.SessionID,
		MemoryInput: memory.MemoryInput{Key: in.Key, Content: in.Content, Domain: in.Domain, Type: in.Type, Importance: in.Importance, Tags: in.Tags, Scope: in.Scope}})
	if err != nil {
		return nil, LearnOutput{}, explain(err)
	}
	return learned(resp, "memory")
}

// EpisodeInput is memory_episode's input.
type EpisodeInput struct {
	Summary    string   `json:"summary" jsonschema:"what happened, self-contained"`
	Outcome    string   `json:"outcome,omitempty" jsonschema:"how it ended: success, failure, partial, or a short phrase"`
	Tags       []string `json:"tags,omitempty" jsonschema:"short labels"`
	Scope      []string `json:"scope,omitempty" jsonschema:"file globs it concerns"`
	Importance *float64 `json:"importance,omitempty" jsonschema:"0 to 1"`
	Namespace  string   `json:"namespace,omitempty" jsonschema:"project namespace (default: the connection's)"`
	SessionID  string   `json:"session_id,omitempty" jsonschema:"the current session"`
}

func (t *tools) episode(ctx context.Context, req *mcp.CallToolRequest, in EpisodeInput) (*mcp.CallToolResult, LearnOutput, error) {
	resp, err := t.clientFor(req).Episode(ctx, client.Episode{Namespace: in.Namespace, SessionID: in.SessionID, Summary: in.Summary,
		Outcome: in.Outcome, Tags: in.Tags, Scope: in.Scope, Importance: in.Importance})
	if err != nil {
		return nil, LearnOutput{}, explain(err)
	}
	return learned(resp, "episode")
}

// ProcedureInput is memory_procedure's input.
type ProcedureInput struct {
	Name       string   `json:"name" jsonschema:"what the workflow does, e.g. release a new version"`
	Steps      []string `json:"steps" jsonschema:"the steps in order"`
	Tags       []string `json:"tags,omitempty" jsonschema:"short labels"`
	Scope      []string `json:"scope,omitempty" jsonschema:"file globs it applies to"`
	Importance *float64 `json:"importance,omitempty" jsonschema:"0 to 1"`
	Namespace  string   `json:"namespace,omitempty" jsonschema:"project namespace (default: the connection's)"`
}

func (t *tools) procedure(ctx context.Context, req *mcp.CallToolRequest, in ProcedureInput) (*mcp.CallToolResult, LearnOutput, error) {
	resp, err := t.clientFor(req).Procedure(ctx, client.Procedure{Namespace: in.Namespace, Name: in.Name, Steps: in.Steps,
		Tags: in.Tags, Scope: in.Scope, Importance: in.Importance})
	if err != nil {
		return nil, LearnOutput{}, explain(err)
	}
	return learned(resp, "procedure")
}

// ForgetInput is memory_forget's input: an id, a key or a subject.
type ForgetInput struct {
	ID        string `json:"id,omitempty" jsonschema:"the memory's id, as memory_recall lists it"`
	Key       string `json:"key,omitempty" jsonschema:"delete every memory with this key instead"`
	Namespace string `json:"namespace,omitempty" jsonschema:"with key: only in this namespace (default: the connection's, else all)"`
	Subject   string `json:"subject,omitempty" jsonschema:"delete everything about this subject (user) instead, for good: its memories and every memory derived from them"`
}

// ForgetOutput lists what was deleted (a subject's purge only counts, and
// adds its erasure receipt).
type ForgetOutput struct {
	Deleted []string               `json:"deleted"`
	Count   int                    `json:"count"`
	Receipt *client.ErasureReceipt `json:"receipt,omitempty"`
}

func (t *tools) forget(ctx context.Context, req *mcp.CallToolRequest, in ForgetInput) (*mcp.CallToolResult, ForgetOutput, error) {
	resp, err := t.clientFor(req).Forget(ctx, client.ForgetRequest{ID: strings.TrimSpace(in.ID), Key: in.Key, Namespace: in.Namespace,
		Subject: in.Subject})
	if err != nil {
		return nil, ForgetOutput{}, explain(err)
	}
	if in.Subject != "" {
		msg := fmt.Sprintf("Forgot %d memory(ies) about %s.", resp.Count, in.Subject)
		if resp.Receipt != nil {
			msg += fmt.Sprintf(" Erasure %s: %s.", resp.Receipt.ID, resp.Receipt.State)
		}
		return text(msg), ForgetOutput(resp), nil
	}
	return text(fmt.Sprintf("Forgot %d memory(ies): %s", len(resp.Deleted), strings.Join(resp.Deleted, ", "))), ForgetOutput(resp), nil
}
