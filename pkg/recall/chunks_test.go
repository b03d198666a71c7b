package recall

import (
	"math"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestBestCosine(t *testing.T) {
	q := []float32{0, 1}
	m := memory.Memory{Vector: []float32{1, 0}}
	if got := bestCosine(q, &m); got != 0 {
		t.Fatalf("without chunks: %v, want the vector's 0", got)
	}
	m.ChunkVectors = [][]float32{{1, 0}, {0.6, 0.8}}
	if got := bestCosine(q, &m); math.Abs(got-0.8) > 1e-6 {
		t.Fatalf("with chunks: %v, want the best chunk's 0.8", got)
	}
}

func TestChunkBias(t *testing.T) {
	if chunkBias(0) != 0 || chunkBias(1) != 0 {
		t.Fatalf("a memory of one chunk gains nothing: %v, %v", chunkBias(0), chunkBias(1))
	}
	prev := 0.0
	for _, n := range []int{2, 4, 8, 16} {
		b := chunkBias(n)
		if b <= prev {
			t.Fatalf("bias of %d chunks %v, want it above %v (fewer chunks)", n, b, prev)
		}
		prev = b
	}
	if b := chunkBias(4); math.Abs(b-0.062) > 0.002 {
		t.Fatalf("bias of 4 chunks %v, want about 0.062", b)
	}
}
