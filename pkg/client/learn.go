package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// LearnResponse is the answer of POST /v1/memories: the event id and the id
// the memory will have once stored; with req.Wait, the stored memory too.
type LearnResponse = api.LearnResponse

// Learn stores an explicit memory (POST /v1/memories). It is queued, not
// stored, when Learn returns, unless req.Wait: then the answer carries the
// stored memory (or Stored false if req.Timeout ran out first). Otherwise
// GetMemory(resp.MemoryID) finds it a moment later. A missing req.ID is filled in before the first attempt so that a
// resend is the same event.
func (c *Client) Learn(ctx context.Context, req api.LearnRequest) (LearnResponse, error) {
	if req.ID == "" {
		req.ID = uuid.NewString()
	}
	req.Tenant = c.tenantOr(req.Tenant)
	req.Namespace = c.namespaceOr(req.Namespace)
	var resp LearnResponse
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/memories", body: req, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("learn: %w", err)
	}
	return resp, nil
}

// Episode is an event worth remembering with its outcome (004's
// memory_episode): stored as type episode, kind episodic.
type Episode struct {
	Tenant    string
	Namespace string
	Subject   string
	SessionID string
	// Summary says what happened (required).
	Summary string
	// Outcome is how it ended, e.g. "success", "failure", "partial".
	Outcome    string
	Tags       []string
	Scope      []string
	Domain     string
	Importance *float64
}

// Episode records an episode: content "<summary>. Outcome: <outcome>",
// tags "episode" and "outcome:<outcome>" added to the given ones.
func (c *Client) Episode(ctx context.Context, ep Episode) (LearnResponse, error) {
	summary := strings.TrimSpace(ep.Summary)
	if summary == "" {
		return LearnResponse{}, &memory.FieldError{Field: "summary", Reason: "is required"}
	}
	content := summary
	tags := append([]string{"episode"}, ep.Tags...)
	if o := strings.TrimSpace(ep.Outcome); o != "" {
		// One line: the pipeline may fold newlines into spaces.
		if !strings.ContainsAny(content[len(content)-1:], ".!?") {
			content += "."
		}
		content += " Outcome: " + o
		tags = append(tags, truncate("outcome:"+memory.NormalizeKey(o), memory.MaxTagChars))
	}
	return c.Learn(ctx, api.LearnRequest{Tenant: ep.Tenant, Namespace: ep.Namespace, Subject: ep.Subject, SessionID: ep.SessionID,
		MemoryInput: memory.MemoryInput{Content: content, Domain: ep.Domain, Type: memory.TypeEpisode, Kind: memory.KindEpisodic,
			Importance: ep.Importance, Tags: tags, Scope: ep.Scope}})
}

// Procedure is a named workflow with its steps (004's memory_procedure):
// stored as type procedure, kind procedural, under the key
// "procedure/<name>".
type Procedure struct {
	Tenant    string
	Namespace string
	Subject   string
	// Name names the workflow (required), e.g. "release a new version".
	Name string
	// Steps in order (at least one).
	Steps      []string
	Tags       []string
	Scope      []string
	Domain     string
	Importance *float64
}

// Procedure saves a procedure: content "<name>:\n1. <step>\n2. <step>…",
// tag "procedure" added to the given ones.
func (c *Client) Procedure(ctx context.Context, p Procedure) (LearnResponse, error) {
	name := strings.TrimSpace(p.Name)
	if name == "" {
		return LearnResponse{}, &memory.FieldError{Field: "name", Reason: "is required"}
	}
	var b strings.Builder
	b.WriteString(name)
	b.WriteString(":")
	n := 0
	for _, s := range p.Steps {
		if s = strings.TrimSpace(s); s != "" {
			n++
			fmt.Fprintf(&b, "\n%d. %s", n, s)
		}
	}
	if n == 0 {
		return LearnResponse{}, &memory.FieldError{Field: "steps", Reason: "needs at least one step"}
	}
	return c.Learn(ctx, api.LearnRequest{Tenant: p.Tenant, Namespace: p.Namespace, Subject: p.Subject,
		MemoryInput: memory.MemoryInput{Key: truncate("procedure/"+memory.NormalizeKey(name), memory.MaxKeyChars), Content: b.String(), Domain: p.Domain, Type: memory.TypeProcedure,
			Kind: memory.KindProcedural, Importance: p.Importance, Tags: append([]string{"procedure"}, p.Tags...), Scope: p.Scope}})
}

// truncate cuts s to at most n runes, so a derived tag or key stays within
// the server's limits instead of failing the whole request.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n]), "-/")
}
