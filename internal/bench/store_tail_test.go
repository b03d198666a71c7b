package bench

import (
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/cputime"
)

// TestStoreTail: the slowest searches are compared with the rest, and a
// slow search whose dense re-run is slow again counts as slow by its query.
func TestStoreTail(t *testing.T) {
	var hybrid []searchSample
	var dense, text []time.Duration
	for i := range 100 {
		q := searchSample{wall: 4 * time.Millisecond, usage: cputime.Usage{CPU: 6 * time.Millisecond, MinorFaults: 1}}
		d := 2 * time.Millisecond
		switch i {
		case 10: // waited: wall far above its CPU, a collection finished
			q = searchSample{wall: 30 * time.Millisecond, usage: cputime.Usage{CPU: 3 * time.Millisecond, MinorFaults: 41}, gc: true}
		case 20, 30: // slow by its query: the dense re-run is slow too
			q = searchSample{wall: 20 * time.Millisecond, usage: cputime.Usage{CPU: 36 * time.Millisecond, MinorFaults: 11, MajorFaults: 2}}
			d = 18 * time.Millisecond
		}
		hybrid = append(hybrid, q)
		dense = append(dense, d)
		text = append(text, time.Millisecond)
	}
	tl := storeTail(hybrid, dense, text)
	if tl.SlowQueries != 3 || tl.SlowFromMs != 20 {
		t.Fatalf("slow %d from %v ms, want 3 from 20", tl.SlowQueries, tl.SlowFromMs)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("slow_cpu_over_wall", tl.SlowCPUOverWall, (0.1+1.8+1.8)/3)
	near("rest_cpu_over_wall", tl.RestCPUOverWall, 1.5)
	near("slow_minor_faults", tl.SlowMinorFaults, 21)
	near("rest_minor_faults", tl.RestMinorFaults, 1)
	near("slow_major_faults", tl.SlowMajorFaults, 4.0/3)
	near("slow_during_gc", tl.SlowDuringGC, 1.0/3)
	near("rest_during_gc", tl.RestDuringGC, 0)
	near("slow_repeat", tl.SlowRepeat, 2.0/3)
	if z := storeTail(nil, nil, nil); z != (StoreTail{}) {
		t.Errorf("no searches: %+v, want zero", z)
	}
}
