// Package heappeak samples the Go heap while a benchmark runs, for the
// memory benchmarks of a build or a rebuild.
package heappeak

import (
	"runtime/metrics"
	"sync"
	"time"
)

// Start samples the heap every millisecond until the returned stop is
// called, which returns the most bytes seen in heap objects (live or not
// yet swept: what the process holds) and in live objects as the last
// garbage collection found them.
func Start() (stop func() (objects, live uint64)) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	read := func() (uint64, uint64) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), sample[1].Value.Uint64()
	}
	var (
		mu         sync.Mutex
		peak, live = read()
		done       = make(chan struct{})
		wg         sync.WaitGroup
	)
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				o, l := read()
				mu.Lock()
				peak, live = max(peak, o), max(live, l)
				mu.Unlock()
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		o, l := read()
		mu.Lock()
		defer mu.Unlock()
		return max(peak, o), max(live, l)
	}
}
