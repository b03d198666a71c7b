package heappeak

import (
	"runtime"
	"testing"
)

// TestStartSeesAnAllocation: a 64 MB slice held while sampling shows in the
// peak of heap objects.
func TestStartSeesAnAllocation(t *testing.T) {
	stop := Start()
	const size = 64 << 20
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i)
	}
	objects, _ := stop()
	runtime.KeepAlive(buf)
	if objects < size {
		t.Fatalf("peak heap objects %d bytes, want at least the %d held", objects, size)
	}
}
