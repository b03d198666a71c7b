package bench

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Synthetic tenant for the consolidation benchmark. Memory i depends only
// on i (and, for the memories added between epochs, on when it is made),
// so runs are reproducible. Vectors are random unit vectors scattered
// around a few hundred random centroids, so every memory has neighbours
// at cosines from about 0.5 to 0.9 (the reconcile and merge windows):
// embedding 100k texts with the built-in model would take minutes.
const (
	consolidateTenant    = "bench-consolidate"
	consolidateCentroids = 256
	consolidateSubjects  = 50
	consolidateKeys      = 200 // keys per subject: shared keys give supersession work
	seedConsolidate      = 0x5eed0010
	// consolidateModel names the synthetic vectors in the store.
	consolidateModel = "bench-synthetic"
)

var consolidateNamespaces = []string{memory.DefaultNamespace, "proj-a", "proj-b", "proj-c", "proj-d", "proj-e"}

// consolidateCorpus generates the tenant's memories.
type consolidateCorpus struct {
	text      *corpus
	centroids [][]float32
	start     time.Time // the clock when the benchmark begins
}

func newConsolidateCorpus(start time.Time) *consolidateCorpus {
	r := rand.New(rand.NewPCG(seedConsolidate, 0))
	cs := make([][]float32, consolidateCentroids)
	for i := range cs {
		cs[i] = make([]float32, corpusDim)
		randomUnit(r, cs[i])
	}
	return &consolidateCorpus{text: newCorpus(1), centroids: cs, start: start}
}

// weighted picks an index by weights summing to 100.
func weighted(r *rand.Rand, weights ...int) int {
	x := r.IntN(100)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

var consolidateTypes = []memory.Type{memory.TypeFact, memory.TypeEpisode, memory.TypePreference, memory.TypeDecision,
	memory.TypeArchitecture, memory.TypeEntity, memory.TypeWorkflow, memory.TypeProcedure, memory.TypePolicy, memory.TypePitfall}

var consolidateTypeWeights = []int{40, 15, 10, 8, 5, 5, 6, 4, 4, 3}

// existing is memory i of the tenant as it stands before the benchmark:
// created up to a year before the start, mostly working, some buffer and
// core; a fifth explicit (source api), the rest inferred.
func (c *consolidateCorpus) existing(i int) memory.Memory {
	r := rand.New(rand.NewPCG(seedConsolidate, uint64(i)+1))
	at := c.start.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
	m := c.build(r, i, at)
	m.Layer = [...]memory.Layer{memory.LayerWorking, memory.LayerBuffer, memory.LayerCore}[weighted(r, 80, 15, 5)]
	if m.Layer == memory.LayerCore && m.Type == memory.TypeEpisode {
		m.Type, m.Kind = memory.TypeFact, memory.KindSemantic // core holds no episodes
	}
	if r.IntN(100) < 40 {
		m.AccessCount = 1 + r.IntN(20)
		m.LastAccessed = at.Add(time.Duration(r.Int64N(int64(c.start.Sub(at)) + 1)))
	}
	m.RepetitionCount = [...]int{0, 1, 2, 3}[weighted(r, 60, 25, 10, 5)]
	return m
}

// changed is the j-th memory added after epoch e's start, at time at: new
// memories land in the buffer (as extraction writes them) or working; one
// in five restates an existing (keyed) memory: its text with a few words
// more and a vector at cosine ≈ 0.97 to it, the near duplicates merge and
// reconcile look for; half of them with its key (key supersession), half
// without (found only by the neighbour search).
func (c *consolidateCorpus) changed(existing, e, j int, at time.Time) memory.Memory {
	i := existing + e*1_000_000 + j
	r := rand.New(rand.NewPCG(seedConsolidate, uint64(i)+1))
	m := c.build(r, i, at)
	m.Layer = [...]memory.Layer{memory.LayerBuffer, memory.LayerWorking}[weighted(r, 70, 30)]
	if r.IntN(100) < 20 && existing > 0 {
		old := c.existing(r.IntN(existing))
		for try := 0; try < 20 && old.Key == ""; try++ { // a keyed one, for supersession
			old = c.existing(r.IntN(existing))
		}
		m.Namespace, m.Subject, m.Key = old.Namespace, old.Subject, old.Key
		if r.IntN(2) == 0 {
			m.Key = "" // no shared key: only the neighbour search finds the pair
		}
		if m.Type == memory.TypeEpisode {
			m.Type, m.Kind = old.Type, old.Kind
		}
		m.Content = old.Content + " " + c.text.sentence(r, 2, 4)
		m.ID = memory.MemoryID(consolidateTenant, m.Namespace, m.Subject, m.Content)
		near(r, old.Vector, m.Vector, 0.012)
	}
	return m
}

// build is the part of a memory common to existing and new ones.
func (c *consolidateCorpus) build(r *rand.Rand, i int, at time.Time) memory.Memory {
	typ := consolidateTypes[weighted(r, consolidateTypeWeights...)]
	ns := memory.DefaultNamespace
	if r.IntN(100) >= 70 {
		ns = consolidateNamespaces[1+r.IntN(len(consolidateNamespaces)-1)]
	}
	subject := "user-" + strconv.Itoa(r.IntN(consolidateSubjects))
	if r.IntN(100) < 10 {
		subject = memory.LoreSubject
	}
	source := [...]memory.Source{memory.SourceAPI, memory.SourceTurn, memory.SourceCompaction, memory.SourceExit, memory.SourceRule}[weighted(r, 20, 60, 10, 5, 5)]
	if typ == memory.TypeEpisode && source == memory.SourceAPI {
		source = memory.SourceCompaction // session notes: distillation's input
	}
	content := c.text.text(i)
	m := memory.Memory{
		ID: memory.MemoryID(consolidateTenant, ns, subject, content), Tenant: consolidateTenant, Namespace: ns, Subject: subject,
		Content: content, Domain: memory.DomainGeneral, Type: typ, Kind: typ.DefaultKind(),
		Importance: min(1, float64(typ.Priority())/4+0.3*r.Float64()), Confidence: memory.ConfidenceInferred, Source: source,
		CreatedAt: at, ModifiedAt: at, ValidFrom: at, EmbeddingModel: consolidateModel, Vector: make([]float32, corpusDim),
	}
	switch {
	case source == memory.SourceAPI:
		m.Confidence = memory.ConfidenceExplicit
	case r.IntN(100) < 15:
		m.Confidence = 0.5 // provisional (001)
	}
	if typ != memory.TypeEpisode && r.IntN(100) < 30 {
		m.Key = "topic/" + strconv.Itoa(r.IntN(consolidateKeys))
	}
	if r.IntN(100) < 3 {
		m.Tags = append(m.Tags, "lesson")
	}
	// Noise 0.02–0.05 per dimension: two memories of a centroid are at
	// cosine 1/sqrt((1+384σ₁²)(1+384σ₂²)), 0.5 to 0.87.
	near(r, c.centroids[r.IntN(len(c.centroids))], m.Vector, 0.02+0.03*r.Float64())
	return m
}

// near writes into dst the unit vector of center plus Gaussian noise of
// sigma per dimension.
func near(r *rand.Rand, center, dst []float32, sigma float64) {
	var norm float64
	for j := range dst {
		x := float64(center[j]) + sigma*r.NormFloat64()
		dst[j] = float32(x)
		norm += x * x
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range dst {
		dst[j] *= inv
	}
}
