package cli

import (
	"context"
	"io"
)

// progressWriterKey carries where the phases of a long command draw their
// bars (see withProgress).
type progressWriterKey struct{}

// withProgress makes phaseProgress draw on w, when w is a terminal.
func withProgress(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, progressWriterKey{}, w)
}

// phaseProgress starts a bar for one phase of a long command (total units,
// -1 when unknown) on the writer withProgress put in ctx; without one, or
// off a terminal, the bar draws nothing. End it with End.
func phaseProgress(ctx context.Context, total int, desc, unit string) *progress {
	w, ok := ctx.Value(progressWriterKey{}).(io.Writer)
	if !ok {
		return &progress{}
	}
	return newProgress(w, int64(total), desc, unit)
}

// stageBars draws one bar per stage of a run that reports (stage, done,
// total), as eval.Config.Progress does: a new stage ends the previous bar.
type stageBars struct {
	w     io.Writer
	names map[string][2]string // stage → description, unit
	stage string
	bar   *progress
}

func (s *stageBars) report(stage string, done, total int) {
	if stage != s.stage || s.bar == nil {
		s.end()
		desc, unit := stage, "items"
		if n, ok := s.names[stage]; ok {
			desc, unit = n[0], n[1]
		}
		s.stage, s.bar = stage, newProgress(s.w, int64(total), desc, unit)
	}
	s.bar.Set(done)
}

// end ends the current stage's bar.
func (s *stageBars) end() {
	if s.bar != nil {
		s.bar.End()
		s.bar = nil
	}
}
