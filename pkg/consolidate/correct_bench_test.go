package consolidate

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// BenchmarkCorrectPhase is the correct phase over a tenant of 100,000
// memories of which 1,000 changed since the last epoch, 50 of them
// corrections: the phase's share of an epoch's budget.
func BenchmarkCorrectPhase(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	last := t0.Add(24 * time.Hour)
	build := func() *run {
		r := &run{seq: 2, now: last.Add(time.Hour), last: last, mems: map[string]*memory.Memory{}, before: map[string]memory.Memory{}}
		for i := range 100_000 {
			at := t0
			content := fmt.Sprintf("The svc-%d database is MySQL %d; it listens on port %d.", i, i%9, 8000+i%1000)
			if i >= 99_000 {
				at = last.Add(time.Minute)
				content = fmt.Sprintf("Service svc-%d keeps its cache in Redis %d.", i, i%7)
				if i%20 == 0 {
					content = fmt.Sprintf("Actually the svc-%d database is Postgres 15, not MySQL.", i-99_000)
				}
			}
			m := &memory.Memory{ID: fmt.Sprintf("m%06d", i), Namespace: "default", Subject: "u1", Content: content,
				Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, CreatedAt: at, ValidFrom: at, Epoch: 1}
			if at.After(last) {
				m.Epoch = 0
			}
			r.mems[m.ID] = m
			r.order = append(r.order, m)
		}
		return r
	}
	var superseded int
	for b.Loop() {
		b.StopTimer()
		r := build()
		b.StartTimer()
		r.supersedeCorrections()
		superseded = r.stats.Superseded
	}
	if superseded != 50 {
		b.Fatalf("superseded %d, want 50", superseded)
	}
}
