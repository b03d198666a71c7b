package cputime

import (
	"runtime"
	"testing"
)

// TestProcessAdvances: CPU spent shows in Process (on unix), never backwards.
func TestProcessAdvances(t *testing.T) {
	before := Process()
	x := 0
	for i := range 50_000_000 {
		x += i & 3
	}
	runtime.KeepAlive(x)
	after := Process()
	if after < before {
		t.Fatalf("process CPU went back: %v then %v", before, after)
	}
	if runtime.GOOS == "linux" && after == before {
		t.Fatalf("process CPU did not move over a busy loop: %v", after)
	}
}

// TestReadFaults: touching fresh memory takes minor faults (on linux), and
// no count goes back.
func TestReadFaults(t *testing.T) {
	before := Read()
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	runtime.KeepAlive(buf)
	d := Read().Sub(before)
	if d.CPU < 0 || d.MinorFaults < 0 || d.MajorFaults < 0 {
		t.Fatalf("usage went back: %+v", d)
	}
	if runtime.GOOS == "linux" && d.MinorFaults == 0 {
		t.Fatalf("no minor fault over 64 MiB of fresh pages: %+v", d)
	}
}
