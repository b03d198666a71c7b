package recall

import (
	"math"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestBestCosine(t *testing.T) {
	q := []float32{0, 1}
	m := memory.Memory{Vector: []float32{1, 0}}
	if got := bestCosine(q, m); got != 0 {
		t.Fatalf("without chunks: %v, want the vector's 0", got)
	}
	m.ChunkVectors = [][]float32{{1, 0}, {0.6, 0.8}}
	if got := bestCosine(q, m); math.Abs(got-0.8) > 1e-6 {
		t.Fatalf("with chunks: %v, want the best chunk's 0.8", got)
	}
}
