package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Synthetic corpus for the store and recall benchmarks. Texts are drawn
// from a Zipf vocabulary so that BM25 sees realistic term statistics (a few
// very common words, a long tail); vectors are random unit vectors, because
// embedding 100k+ texts with the real model would take minutes and the
// search cost does not depend on what the vectors mean.
const (
	corpusVocab    = 4000
	corpusZipfS    = 1.1
	corpusDim      = 384
	seedVectors    = 0x5eed0001
	seedTexts      = 0x5eed0002
	seedQueries    = 0x5eed0003
	corpusMinWords = 6
	corpusMaxWords = 16
)

// corpusSyllables build pronounceable pseudo-words that are neither
// stopwords nor real words, so stemming leaves most of them distinct.
var corpusSyllables = []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa",
	"do", "gu", "ba", "fe", "hi", "jo", "ku", "ly", "mo", "nu", "po", "ri", "se", "ti", "wa"}

// corpus generates memories and queries reproducibly: memory i's text and
// vector depend only on i, so a brute-force scan can regenerate any
// tenant's vectors without the benchmark holding them.
type corpus struct {
	words   []string
	tenants int
}

func newCorpus(tenants int) *corpus {
	seen := make(map[string]bool, corpusVocab)
	words := make([]string, 0, corpusVocab)
	r := rand.New(rand.NewPCG(seedTexts, 0))
	for len(words) < corpusVocab {
		var b strings.Builder
		for n := 2 + r.IntN(3); n > 0; n-- {
			b.WriteString(corpusSyllables[r.IntN(len(corpusSyllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	// Shorter words first: in language the most frequent words are short.
	sort.SliceStable(words, func(i, j int) bool { return len(words[i]) < len(words[j]) })
	return &corpus{words: words, tenants: tenants}
}

// tenant names the partition of memory i (round robin).
func (c *corpus) tenant(i int) string { return benchTenant(i % c.tenants) }

func benchTenant(t int) string { return "bench-" + strconv.Itoa(t) }

// sentence draws between lo and hi words from the Zipf vocabulary.
func (c *corpus) sentence(r *rand.Rand, lo, hi int) string {
	z := rand.NewZipf(r, corpusZipfS, 1, uint64(len(c.words)-1))
	n := lo + r.IntN(hi-lo+1)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = c.words[z.Uint64()]
	}
	return strings.Join(parts, " ")
}

// text is memory i's content.
func (c *corpus) text(i int) string {
	return c.sentence(rand.New(rand.NewPCG(seedTexts, uint64(i)+1)), corpusMinWords, corpusMaxWords)
}

// query is the text of query q: 2 to 5 words, like a short question.
func (c *corpus) query(q int) string {
	return c.sentence(rand.New(rand.NewPCG(seedQueries, uint64(q))), 2, 5)
}

// vector writes memory i's unit vector into dst.
func (c *corpus) vector(i int, dst []float32) {
	randomUnit(rand.New(rand.NewPCG(seedVectors, uint64(i))), dst)
}

// queryVector is query q's unit vector, from a stream no memory uses.
func (c *corpus) queryVector(q int) []float32 {
	v := make([]float32, corpusDim)
	randomUnit(rand.New(rand.NewPCG(seedQueries, uint64(q)|1<<62)), v)
	return v
}

// randomUnit fills dst with a uniformly random direction.
func randomUnit(r *rand.Rand, dst []float32) {
	var norm float64
	for j := range dst {
		x := r.NormFloat64()
		dst[j] = float32(x)
		norm += x * x
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range dst {
		dst[j] *= inv
	}
}

// memory is memory i, valid for the store, with its vector.
func (c *corpus) memory(i int) memory.Memory {
	tenant := c.tenant(i)
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	v := make([]float32, corpusDim)
	c.vector(i, v)
	return memory.Memory{
		ID:             memory.DeterministicID("bench", tenant, strconv.Itoa(i)),
		Tenant:         tenant,
		Namespace:      memory.DefaultNamespace,
		Content:        c.text(i),
		Domain:         memory.DomainGeneral,
		Type:           memory.TypeFact,
		Kind:           memory.KindSemantic,
		Layer:          memory.LayerWorking,
		Importance:     0.5,
		Confidence:     memory.ConfidenceInferred,
		Source:         memory.SourceAPI,
		CreatedAt:      ts,
		ModifiedAt:     ts,
		EmbeddingModel: "bench-random",
		Vector:         v,
	}
}

// tenantSlab regenerates tenant t's vectors, contiguous, in insertion order,
// with the memory index of each row.
func (c *corpus) tenantSlab(t, memories int) ([]float32, []int) {
	var idx []int
	for i := t; i < memories; i += c.tenants {
		idx = append(idx, i)
	}
	slab := make([]float32, len(idx)*corpusDim)
	for r, i := range idx {
		c.vector(i, slab[r*corpusDim:(r+1)*corpusDim])
	}
	return slab, idx
}

// exactTopK is the brute-force answer: the ids of the k rows of slab most
// similar (dot product of unit vectors) to q.
func (c *corpus) exactTopK(slab []float32, idx []int, q []float32, k int) []string {
	type scored struct {
		row   int
		score float32
	}
	all := make([]scored, len(idx))
	for r := range idx {
		row := slab[r*corpusDim : (r+1)*corpusDim]
		var s float32
		for j, x := range row {
			s += x * q[j]
		}
		all[r] = scored{r, s}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].score > all[b].score })
	out := make([]string, 0, k)
	for _, s := range all[:min(k, len(all))] {
		i := idx[s.row]
		out = append(out, memory.DeterministicID("bench", c.tenant(i), strconv.Itoa(i)))
	}
	return out
}

// percentile returns the p-th percentile (0..100) of sorted durations in ms.
func percentile(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return ms(sorted[min(len(sorted)-1, len(sorted)*p/100)])
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

// errNeed formats a flag precondition.
func errNeed(what string) error { return fmt.Errorf("need %s", what) }
