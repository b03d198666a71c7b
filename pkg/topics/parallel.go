package topics

import (
	"runtime"
	"sync"
)

// parallelWork is the number of multiply-adds below which a pass runs on one
// goroutine: starting goroutines costs more than it saves under it.
const parallelWork = 1 << 20

// workers is how many goroutines a pass of that much work should use.
func workers(work int) int {
	if work < parallelWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), work/parallelWork))
}

// parallelChunks splits [0,n) into w contiguous chunks and runs fn on each,
// concurrently when w > 1. Each chunk writes only its own indices, so the
// result does not depend on scheduling.
func parallelChunks(n, w int, fn func(w, lo, hi int)) {
	if w <= 1 || n < 2*w {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for c := 0; c < w; c++ {
		lo, hi := c*n/w, (c+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(c, lo, hi)
		}()
	}
	wg.Wait()
}
