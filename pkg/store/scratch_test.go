package store

import (
	"sync"
	"testing"
)

// TestScratchLendsDistinctFloats: what Floats lends is never lent again
// before Reset, whatever the sizes (within a block, across blocks, larger
// than a block), also from goroutines at once; Reset lends the kept space
// again and lets go of space beyond scratchKeep.
func TestScratchLendsDistinctFloats(t *testing.T) {
	var sc Scratch
	var mu sync.Mutex
	var lent [][]float32
	var wg sync.WaitGroup
	sizes := []int{1, 384, 5000, scratchBlock - 3, scratchBlock + 1, 7}
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				n := sizes[(g+i)%len(sizes)]
				f := sc.Floats(n)
				if len(f) != n || cap(f) != n {
					t.Errorf("Floats(%d): len %d cap %d", n, len(f), cap(f))
					return
				}
				for k := range f {
					f[k] = float32(g*1000 + i)
				}
				mu.Lock()
				lent = append(lent, f)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, f := range lent {
		for k := range f {
			if f[k] != f[0] {
				t.Fatalf("a lent slice of %d floats was written by another borrower at %d: %v vs %v", len(f), k, f[k], f[0])
			}
		}
	}
	if sc.Floats(0) != nil || sc.Vector(nil) != nil {
		t.Error("nothing asked for, something lent")
	}
	v := sc.Vector([]float32{1, 2, 3})
	if len(v) != 3 || v[0] != 1 || v[2] != 3 {
		t.Errorf("Vector copied %v", v)
	}

	sc.Reset()
	kept := 0
	for _, b := range sc.blocks {
		kept += len(b)
	}
	if kept > scratchKeep || kept == 0 {
		t.Errorf("after Reset the scratch keeps %d floats, want some and at most %d", kept, scratchKeep)
	}
	first := sc.Floats(10)
	if &first[0] != &sc.blocks[0][0] {
		t.Error("after Reset the first block is not lent again")
	}
}
