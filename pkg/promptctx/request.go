package promptctx

import (
	"fmt"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// MaxFilePathChars bounds a request's file path.
const MaxFilePathChars = 1024

// ContextRequest is the body of POST /v1/context.
type ContextRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Query is the task at hand; without one the contextual layer is empty
	// unless FilePath brings memories scoped to that file.
	Query string `json:"query,omitempty"`
	// SessionID is accepted for symmetry with resume and for tracing; it
	// does not change the block.
	SessionID string `json:"session_id,omitempty"`
	// Subject limits memories to the subject's own, lore and unowned ones,
	// and picks the personality directive.
	Subject string `json:"subject,omitempty"`
	// FilePath is the file being worked on: memories scoped to other files
	// are left out, memories scoped to it rank higher.
	FilePath string `json:"file_path,omitempty"`
	// Budget in tokens (cl100k_base); 0 means the configured default (800).
	Budget int `json:"budget,omitempty"`
	// AsOf is passed to recall: the time the query is asked at (RFC 3339,
	// default now). Given, the block holds what was true then (valid
	// time), versions superseded since included.
	AsOf recall.Instant `json:"as_of,omitzero"`
	// KnownAt builds the block from what Recollect knew then (record time).
	KnownAt recall.Instant `json:"known_at,omitzero"`
}

// ResumeRequest is GET /v1/resume's query.
type ResumeRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// SessionID puts the session's own recent memories first in Recent.
	SessionID string `json:"session_id,omitempty"`
	// Budget in tokens; 0 means the sum of the section budgets, and any
	// other value scales them.
	Budget int `json:"budget,omitempty"`
}

func (a *Assembler) normalizeContext(req *ContextRequest) error {
	if err := scopeNames(&req.Tenant, &req.Namespace); err != nil {
		return err
	}
	req.Query = memory.CleanText(req.Query)
	if n := utf8.RuneCountInString(req.Query); n > recall.MaxQueryChars {
		return &memory.FieldError{Field: "query", Reason: fmt.Sprintf("is longer than %d characters (%d)", recall.MaxQueryChars, n)}
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"session_id", req.SessionID, memory.MaxNameChars}, {"subject", req.Subject, memory.MaxNameChars}, {"file_path", req.FilePath, MaxFilePathChars}} {
		if err := checkName(f.name, f.v, f.max); err != nil {
			return err
		}
	}
	return a.budget(&req.Budget, a.cfg.Budget)
}

func (a *Assembler) normalizeResume(req *ResumeRequest) error {
	if err := scopeNames(&req.Tenant, &req.Namespace); err != nil {
		return err
	}
	if err := checkName("session_id", req.SessionID, memory.MaxNameChars); err != nil {
		return err
	}
	return a.budget(&req.Budget, a.cfg.resumeBudget())
}

func scopeNames(tenant, namespace *string) error {
	if *tenant == "" {
		*tenant = memory.DefaultTenant
	}
	if *namespace == "" {
		*namespace = memory.DefaultNamespace
	}
	if !memory.ValidTenant(*tenant) {
		return &memory.FieldError{Field: "tenant", Reason: "must be 1-64 characters of [A-Za-z0-9_-]"}
	}
	if !memory.ValidNamespace(*namespace) {
		return &memory.FieldError{Field: "namespace", Reason: "must be 1-64 characters of [A-Za-z0-9_./:-]"}
	}
	return nil
}

func (a *Assembler) budget(b *int, def int) error {
	if *b == 0 {
		*b = def
	}
	if *b < 1 || *b > a.cfg.MaxBudget {
		return &memory.FieldError{Field: "budget", Reason: fmt.Sprintf("must be between 1 and %d tokens", a.cfg.MaxBudget)}
	}
	return nil
}

func checkName(field, v string, max int) error {
	if n := utf8.RuneCountInString(v); n > max {
		return &memory.FieldError{Field: field, Reason: fmt.Sprintf("is longer than %d characters (%d)", max, n)}
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return &memory.FieldError{Field: field, Reason: "contains a control character"}
		}
	}
	return nil
}
