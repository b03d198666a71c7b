package local

import (
	"runtime"
	"sync"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// lexParallelMin is the fewest memories worth analysing on several cores:
// a memory takes microseconds, a goroutine about one.
const lexParallelMin = 64

// memoryVectors returns the lexical vectors of mems, computed before any
// lock is taken (writes) and across cores (recovery replays whole snapshot
// frames, where analysis would otherwise dominate).
func memoryVectors(mems []memory.Memory) []lexical.SparseVector {
	out := make([]lexical.SparseVector, len(mems))
	workers := min(runtime.GOMAXPROCS(0), len(mems)/lexParallelMin)
	if workers <= 1 {
		for i := range mems {
			out[i] = lexical.MemoryVector(mems[i])
		}
		return out
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(mems)/workers, (w+1)*len(mems)/workers
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				out[i] = lexical.MemoryVector(mems[i])
			}
		})
	}
	wg.Wait()
	return out
}
