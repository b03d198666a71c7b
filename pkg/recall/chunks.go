package recall

import (
	"math"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A long memory is found by its best chunk (store.Query.Chunks), and the
// best of n chunks is one of n draws: against a query about something
// else, a message of eight chunks scores, on average, well above a message
// of one. Long assistant answers used to take the places of the short
// user messages that held the facts (issue 21). A chunked memory's cosine
// is therefore lowered by what its number of chunks alone is expected to
// add: chunkSpread times the expected best of n standard normal draws
// (Blom's approximation), 0 for one chunk, 0.035 for two, 0.062 for four,
// 0.085 for eight. chunkSpread is half the spread of the cosines between a
// query and the memories it is asked over (0.115 on LoCoMo dev, 0.129 on
// DevChat, built-in model): chunks of one message resemble each other, so
// their best is less of a lottery than n unrelated memories'.
const chunkSpread = 0.06

// chunkBias is what a memory of n chunks gains from their number alone.
func chunkBias(n int) float64 {
	if n < 2 {
		return 0
	}
	p := (float64(n) - 0.375) / (float64(n) + 0.25)
	return chunkSpread * math.Sqrt2 * math.Erfinv(2*p-1)
}

// fairCosine is a dense score (the best of m's vector and its chunks')
// less m's chunk bias.
func fairCosine(best float64, m *memory.Memory) float64 {
	return best - chunkBias(len(m.ChunkVectors))
}

// bestCosine is what the dense channel would have scored m with: the best
// cosine of vec with m's vector and its chunk vectors (a long memory is
// found by its best part; store.Query.Chunks).
func bestCosine(vec []float32, m *memory.Memory) float64 {
	best := cosine(vec, m.Vector)
	for _, c := range m.ChunkVectors {
		best = max(best, cosine(vec, c))
	}
	return best
}
