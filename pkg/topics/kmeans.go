package topics

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// kmeansIterations bounds Lloyd's loop; bisections of real clusters settle
// in a handful of rounds. kmeansSample is the most vectors the loop runs on:
// a larger set is clustered through a sample and then assigned once, which
// finds the same few centres at a fraction of the cost.
const (
	kmeansIterations = 20
	kmeansSample     = 1024
)

// kmeans assigns each of vs (unit vectors) to one of at most k groups by
// spherical k-means with k-means++ seeding drawn from rng. Ties go to the
// lower group, so the result depends only on vs's order and rng.
func kmeans(vs [][]float32, k int, rng *rand.Rand) []int {
	m := len(vs)
	assign := make([]int, m)
	if m == 0 || k < 2 {
		return assign
	}
	if m <= k {
		for i := range assign {
			assign[i] = i
		}
		return assign
	}
	if m <= kmeansSample {
		lloyd(vs, k, rng, assign)
		return assign
	}
	// rng.Perm's first entries are a uniform sample; sorted, they keep vs's order
	pick := rng.Perm(m)[:kmeansSample]
	slices.Sort(pick)
	sample := make([][]float32, len(pick))
	for i, p := range pick {
		sample[i] = vs[p]
	}
	centres := lloyd(sample, k, rng, make([]int, len(sample)))
	if len(centres) >= 2 {
		assignNearest(vs, centres, assign, true)
	}
	return assign
}

// lloyd runs spherical k-means on vs, filling assign, and returns the
// centres (fewer than two when vs cannot be divided).
func lloyd(vs [][]float32, k int, rng *rand.Rand, assign []int) [][]float32 {
	centres := seedCentres(vs, k, rng)
	if len(centres) < 2 {
		return centres
	}
	dim := len(vs[0])
	sums := make([][]float32, len(centres)) // float32 is plenty for a direction
	for i := range sums {
		sums[i] = make([]float32, dim)
	}
	for iter := 0; iter < kmeansIterations; iter++ {
		changed := assignNearest(vs, centres, assign, iter == 0)
		if !changed {
			break
		}
		for _, s := range sums {
			clear(s)
		}
		for i, v := range vs {
			s := sums[assign[i]][:len(v)]
			for j, x := range v {
				s[j] += x
			}
		}
		for c, s := range sums {
			if n := math.Sqrt(float64(dot(s, s))); n > 0 {
				inv := float32(1 / n)
				for j, x := range s {
					centres[c][j] = x * inv
				}
			}
		}
	}
	return centres
}

// assignNearest points every vector at its most similar centre and reports
// whether anything moved (always true on the first round).
func assignNearest(vs, centres [][]float32, assign []int, first bool) bool {
	moved := make([]bool, workers(len(vs)*len(centres)*len(vs[0])))
	parallelChunks(len(vs), len(moved), func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			best, bestSim := 0, dot(vs[i], centres[0])
			for c := 1; c < len(centres); c++ {
				if s := dot(vs[i], centres[c]); s > bestSim {
					best, bestSim = c, s
				}
			}
			if first || assign[i] != best {
				assign[i] = best
				moved[w] = true
			}
		}
	})
	for _, m := range moved {
		if m {
			return true
		}
	}
	return false
}

// seedCentres picks up to k distinct starting centres, each next one drawn
// with probability proportional to its distance from those already picked.
func seedCentres(vs [][]float32, k int, rng *rand.Rand) [][]float32 {
	m := len(vs)
	first := rng.IntN(m)
	centres := [][]float32{append([]float32(nil), vs[first]...)}
	dist := make([]float64, m)
	for i, v := range vs {
		dist[i] = distance(v, centres[0])
	}
	for len(centres) < k {
		var total float64
		for _, d := range dist {
			total += d
		}
		if total <= 1e-9 {
			break // everything left coincides with a centre
		}
		r := rng.Float64() * total
		pick := -1
		for i, d := range dist {
			if d <= 0 {
				continue
			}
			pick = i
			if r -= d; r < 0 {
				break
			}
		}
		c := append([]float32(nil), vs[pick]...)
		centres = append(centres, c)
		for i, v := range vs {
			if d := distance(v, c); d < dist[i] {
				dist[i] = d
			}
		}
	}
	return centres
}

func distance(a, b []float32) float64 {
	d := 1 - float64(dot(a, b))
	if d < 0 {
		return 0
	}
	return d
}

// seededRand returns a generator determined by the given strings, so each
// clustering step draws the same numbers for the same memories.
func seededRand(parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}
