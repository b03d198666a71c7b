package bench

import "context"

// Bar is a progress bar of one phase of a benchmark: units done are added,
// and End ends it (complete when every unit is done).
type Bar interface {
	Add(n int)
	End()
}

// BarFunc starts a bar of total units (-1 when unknown) named desc, counting
// unit.
type BarFunc func(total int, desc, unit string) Bar

type barsKey struct{}

// WithBars makes the benchmarks run with ctx draw their phases' bars with
// start (the CLI draws them on a terminal).
func WithBars(ctx context.Context, start BarFunc) context.Context {
	return context.WithValue(ctx, barsKey{}, start)
}

// noBar draws nothing.
type noBar struct{}

func (noBar) Add(int) {}
func (noBar) End()    {}

// phaseProgress starts a bar for one phase with the BarFunc WithBars put in
// ctx; without one, a bar that draws nothing.
func phaseProgress(ctx context.Context, total int, desc, unit string) Bar {
	if start, ok := ctx.Value(barsKey{}).(BarFunc); ok && start != nil {
		return start(total, desc, unit)
	}
	return noBar{}
}
