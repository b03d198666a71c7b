package minilm

import (
	"sync"
	"sync/atomic"
)

// forEach runs fn(worker, i) for every i in [0, n) on up to par goroutines
// (worker < par indexes per-goroutine scratch). Items are taken in order
// as goroutines become free rather than split up front, so a core that is
// busy with other work simply takes fewer of them.
func forEach(par, n int, fn func(worker, i int)) {
	par = min(par, n)
	if par <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	work := func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(w, i)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < par; w++ {
		wg.Go(func() { work(w) })
	}
	work(0)
	wg.Wait()
}
