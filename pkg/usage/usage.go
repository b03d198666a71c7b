// Package usage records every model call (LLM and embedding) with its tokens,
// duration and outcome, so that operators can see what memory costs.
package usage

import (
	"context"
	"github.com/recollect-dev/recollect/pkg/api"
	"time"
)

// Outcomes of a model call.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
)

// Record is one model call.
type Record struct {
	// ID names the record, so a backend given it twice (a batch replayed
	// from the spool after a crash) counts it once. Buffered sets it;
	// records without one are counted each time they are written.
	ID           string        `json:"id,omitempty"`
	Time         time.Time     `json:"time"`
	Tenant       string        `json:"tenant"`
	Component    string        `json:"component"` // embedder, extractor, consolidator, query, ...
	Provider     string        `json:"provider"`  // builtin, openai, ollama, ...
	Model        string        `json:"model"`
	InputTokens  int64         `json:"input_tokens"`
	OutputTokens int64         `json:"output_tokens"`
	Duration     time.Duration `json:"duration_ns"`
	Outcome      string        `json:"outcome"`
	TraceID      string        `json:"trace_id,omitempty"`
}

// Sink accepts records. Record never blocks the caller on the backend: a
// sink buffers within a bound and counts what it had to drop.
type Sink interface {
	Record(ctx context.Context, r Record)
	// Flush writes everything buffered so far, or returns why it could not.
	Flush(ctx context.Context) error
	// Dropped is how many records were lost because the buffer was full.
	Dropped() int64
	Close() error
}

// Total aggregates records per component and model.
type Total = api.UsageTotal

// Query selects records for Totals; empty fields mean any. The time range
// is half-open: Since <= Time < Until.
type Query struct {
	Tenant string
	Since  time.Time
	Until  time.Time
}

// Reader answers usage questions (recollect usage).
type Reader interface {
	// Totals groups the records q selects by component and model, ordered
	// by component, then model; no records give an empty result.
	Totals(ctx context.Context, q Query) ([]Total, error)
}
