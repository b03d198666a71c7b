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
