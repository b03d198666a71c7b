package local

import (
	"math"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestChunkSearchApproximate: above the int8 threshold the long memories
// are still scored exactly by their best chunk, each returned once, and
// the ranking with chunks agrees with SearchExact's.
func TestChunkSearchApproximate(t *testing.T) {
	const n, dim = 3000, 64
	cfg := DefaultConfig()
	cfg.ApproxMinRows = 500
	s := openT(t, t.TempDir(), WithConfig(cfg))
	defer closeT(t, s)
	query := seededVector(999_999, dim)
	mems := make([]memory.Memory, n)
	for i := range mems {
		mems[i] = testMemory("t", i, seededVector(uint64(i), dim))
		if i%100 == 7 { // every hundredth is long: three chunks
			mems[i].ChunkVectors = [][]float32{seededVector(uint64(i)+1e6, dim), seededVector(uint64(i)+2e6, dim), seededVector(uint64(i)+3e6, dim)}
		}
	}
	// One long memory's third chunk is the query itself.
	mems[1507].ChunkVectors = [][]float32{seededVector(1, dim), seededVector(2, dim), query}
	if err := s.Upsert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	q := store.Query{Tenant: "t", Vector: query, K: 20, Chunks: true}
	approx, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := s.SearchExact(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(approx) != 20 || approx[0].Memory.ID != mems[1507].ID || math.Abs(approx[0].Score-1) > 1e-5 {
		t.Fatalf("top hit %s scoring %.6f of %d, want %s scoring 1", approx[0].Memory.ID, approx[0].Score, len(approx), mems[1507].ID)
	}
	seen := map[string]bool{}
	for _, h := range approx {
		if seen[h.Memory.ID] {
			t.Fatalf("%s returned twice", h.Memory.ID)
		}
		seen[h.Memory.ID] = true
	}
	common := 0
	for _, h := range exact {
		if seen[h.Memory.ID] {
			common++
		}
	}
	if common < 19 {
		t.Fatalf("approximate search with chunks shares %d of 20 hits with the exact one", common)
	}
	// Each long hit's score is its best vector's, exactly.
	for _, h := range approx {
		want := float64(dotGeneric(unitVec(query), unitVec(h.Memory.Vector)))
		for _, c := range h.Memory.ChunkVectors {
			want = math.Max(want, float64(dotGeneric(unitVec(query), c)))
		}
		if math.Abs(h.Score-want) > 1e-5 {
			t.Fatalf("%s scores %.6f, want %.6f", h.Memory.ID, h.Score, want)
		}
	}
	// Deleting long and short memories keeps the rows and chunks in step.
	var del []string
	for i := 0; i < n; i += 3 {
		if i != 1507 {
			del = append(del, mems[i].ID)
		}
	}
	if err := s.Delete(t.Context(), "t", del...); err != nil {
		t.Fatal(err)
	}
	p := s.partition("t")
	long := 0
	for i := range p.recs {
		if p.chunks[i] != nil {
			long++
			m, err := p.memoryAt(i)
			if err != nil {
				t.Fatal(err)
			}
			k := slices.IndexFunc(mems, func(x memory.Memory) bool { return x.ID == m.ID })
			if len(m.ChunkVectors) != len(mems[k].ChunkVectors) || dotGeneric(m.ChunkVectors[0], unitVec(mems[k].ChunkVectors[0])) < 1-1e-5 {
				t.Fatalf("row %d (%s) holds another memory's chunks after deletes", i, m.ID)
			}
		}
	}
	if long != p.nlong {
		t.Fatalf("%d rows have chunks, nlong says %d", long, p.nlong)
	}
	approx, err = s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if approx[0].Memory.ID != mems[1507].ID {
		t.Fatalf("after deletes the top hit is %s", approx[0].Memory.ID)
	}
}

func unitVec(v []float32) []float32 {
	u, err := store.Normalized(v)
	if err != nil {
		panic(err)
	}
	return u
}
