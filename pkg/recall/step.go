package recall

import (
	"context"
	"errors"
	"github.com/recollect-dev/recollect/pkg/api"
	"log/slog"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// Step reports one LLM step of a recall: whether it changed the answer,
// what set it off, and otherwise why not.
type Step = api.RecallStep

// Reasons a step was not applied besides the outcomes of metrics.go.
const (
	reasonLLMOff       = "llm_off"
	reasonNoCandidates = "no_candidates"
)

// Triggers of a step.
const (
	triggerRequest = "request"
	triggerAuto    = "auto"
	triggerDefault = "default"
)

// failStep counts and logs a step that fell back to the answer before it,
// and says why. Failures are warnings: recall answered, but without the
// step the operator configured.
func (r *Recaller) failStep(ctx context.Context, step, tenant string, err error) string {
	outcome := outcomeFailed
	var perr parseError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		outcome = outcomeTimeout
	case errors.As(err, &perr), errors.Is(err, llm.ErrNoJSON):
		outcome = outcomeUnparseable
	case errors.As(err, new(searchError)):
		outcome = outcomeSearch
	}
	r.metrics.steps.WithLabelValues(step, outcome).Inc()
	r.log.LogAttrs(ctx, slog.LevelWarn, "recall llm step skipped", slog.String("step", step), slog.String("tenant", tenant),
		slog.String("outcome", outcome), slog.Any("error", err))
	return outcome
}

// parseError is an LLM answer without anything usable in it.
type parseError struct{ msg string }

func (e parseError) Error() string { return e.msg }

// searchError is a failed retrieval for an alternative phrasing.
type searchError struct{ err error }

func (e searchError) Error() string { return e.err.Error() }
func (e searchError) Unwrap() error { return e.err }
