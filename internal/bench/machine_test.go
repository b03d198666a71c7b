package bench

import (
	"runtime"
	"testing"
)

// TestCPUTicks: the machine's counters advance and a share is a share.
func TestCPUTicks(t *testing.T) {
	before := readCPUTicks()
	x := 0
	for i := range 20_000_000 {
		x += i & 7
	}
	runtime.KeepAlive(x)
	d := readCPUTicks().since(before)
	if runtime.GOOS == "linux" && d.total == 0 {
		t.Fatalf("no CPU ticks passed over a busy loop: %+v then %+v", before, readCPUTicks())
	}
	if s := d.stealShare(); s < 0 || s > 1 {
		t.Fatalf("steal share %v", s)
	}
	if got := (cpuTicks{total: 200, steal: 50}).since(cpuTicks{total: 100, steal: 40}).stealShare(); got != 0.1 {
		t.Fatalf("steal share of 10 in 100 ticks = %v", got)
	}
	if got := (cpuTicks{total: 100}).since(cpuTicks{total: 200}); got != (cpuTicks{}) {
		t.Fatalf("counters that went back gave %+v, want none", got)
	}
}
