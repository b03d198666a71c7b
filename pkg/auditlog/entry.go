package auditlog

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Who decided an operation.
const (
	DeciderRule     = "rule"     // a threshold or heuristic of the epoch
	DeciderLLM      = "llm"      // a model's proposal (Model names it)
	DeciderUser     = "user"     // a user's own request, e.g. a purge
	DeciderOperator = "operator" // an operator's setting, e.g. retention
)

// Deciders lists the valid Decider values.
func Deciders() []string {
	return []string{DeciderRule, DeciderLLM, DeciderUser, DeciderOperator}
}

// Limits of an entry's fields. Free text is bounded generously: an entry
// refused for a long reason would fail its whole epoch (ClipReason).
const (
	MaxNameChars   = 64  // phase, op, decider
	MaxModelChars  = 256 // model names can be paths
	MaxEpochChars  = 256 // the epoch request id
	MaxReasonChars = 16 << 10
)

// Entry is one operation of a phase, applied or refused. Before and After
// are the memory records it read and wrote (Snapshot), absent when there
// were none (nothing before a create, nothing after a refusal).
type Entry struct {
	Time      time.Time       `json:"time"`
	Tenant    string          `json:"tenant"`
	Epoch     string          `json:"epoch,omitempty"` // the epoch request id
	Seq       int64           `json:"seq,omitempty"`   // the epoch sequence number
	Phase     string          `json:"phase"`           // triage, gate, merge, reconcile, supersede, distill, audit, decay, archive, retention, purge, ...
	Op        string          `json:"op"`              // promote, demote, adjust, merge, supersede, archive, delete, keep, reject, create, ...
	MemoryIDs []string        `json:"memory_ids,omitempty"`
	Before    json.RawMessage `json:"before,omitempty"`
	After     json.RawMessage `json:"after,omitempty"`
	Applied   bool            `json:"applied"`
	Reason    string          `json:"reason,omitempty"`
	Decider   string          `json:"decider"`
	Model     string          `json:"model,omitempty"`
}

// Snapshot encodes memories as a JSON array for Before or After, without
// their vectors (nobody audits 384 floats); no memories give nil.
func Snapshot(ms ...memory.Memory) json.RawMessage {
	if len(ms) == 0 {
		return nil
	}
	out := make([]memory.Memory, len(ms))
	for i, m := range ms {
		m.Vector = nil
		out[i] = m
	}
	data, err := json.Marshal(out)
	if err != nil {
		// A memory is plain data: only a NaN or infinite float gets here.
		data, _ = json.Marshal(fmt.Sprintf("unencodable memories: %v", err))
	}
	return data
}

// Memories decodes a Snapshot.
func Memories(raw json.RawMessage) ([]memory.Memory, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var ms []memory.Memory
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, fmt.Errorf("decode audit snapshot: %w", err)
	}
	return ms, nil
}

// Validate checks what every backend needs: a valid tenant, a time, a
// phase, an op and a known decider, bounded strings and JSON snapshots.
func (e *Entry) Validate() error {
	switch {
	case !memory.ValidTenant(e.Tenant):
		return fieldErr("tenant", "must be 1-%d characters of [A-Za-z0-9_-]", memory.MaxNameChars)
	case e.Time.IsZero():
		return fieldErr("time", "is required")
	case !validName(e.Phase):
		return fieldErr("phase", "must be 1-%d characters", MaxNameChars)
	case !validName(e.Op):
		return fieldErr("op", "must be 1-%d characters", MaxNameChars)
	case !slices.Contains(Deciders(), e.Decider):
		return fieldErr("decider", "must be one of %v (got %q)", Deciders(), e.Decider)
	case len(e.Model) > MaxModelChars:
		return fieldErr("model", "is longer than %d characters", MaxModelChars)
	case len(e.Epoch) > MaxEpochChars:
		return fieldErr("epoch", "is longer than %d characters", MaxEpochChars)
	case len(e.Reason) > MaxReasonChars:
		return fieldErr("reason", "is longer than %d characters", MaxReasonChars)
	case len(e.Before) > 0 && !json.Valid(e.Before):
		return fieldErr("before", "is not JSON")
	case len(e.After) > 0 && !json.Valid(e.After):
		return fieldErr("after", "is not JSON")
	}
	return nil
}

// ValidateAll validates a batch, naming the first bad entry.
func ValidateAll(entries []Entry) error {
	for i := range entries {
		if err := entries[i].Validate(); err != nil {
			return prefixed(fmt.Sprintf("entries[%d]", i), err)
		}
	}
	return nil
}

// ClipReason cuts a reason (a model's words, say) to MaxReasonChars bytes
// on a character boundary, marking the cut.
func ClipReason(s string) string {
	if len(s) <= MaxReasonChars {
		return s
	}
	const mark = "…"
	cut := MaxReasonChars - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

func validName(s string) bool { return s != "" && len(s) <= MaxNameChars }

func fieldErr(field, format string, args ...any) error {
	return &memory.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func prefixed(prefix string, err error) error {
	if fe, ok := err.(*memory.FieldError); ok {
		return &memory.FieldError{Field: prefix + "." + fe.Field, Reason: fe.Reason}
	}
	return err
}
