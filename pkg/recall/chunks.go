package recall

import "github.com/recollect-dev/recollect/pkg/memory"

// bestCosine is what the dense channel would have scored m with: the best
// cosine of vec with m's vector and its chunk vectors (a long memory is
// found by its best part; store.Query.Chunks).
func bestCosine(vec []float32, m memory.Memory) float64 {
	best := cosine(vec, m.Vector)
	for _, c := range m.ChunkVectors {
		best = max(best, cosine(vec, c))
	}
	return best
}
