package qdrant

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func TestChunkVectorLayout(t *testing.T) {
	info := func(req *qdrant.CreateCollection) *qdrant.CollectionInfo {
		return &qdrant.CollectionInfo{Config: &qdrant.CollectionConfig{Params: &qdrant.CollectionParams{
			VectorsConfig: req.VectorsConfig, SparseVectorsConfig: req.SparseVectorsConfig,
		}}}
	}
	if !hasChunkVector(384, info(createRequest("c", 384))) {
		t.Fatal("the collection this store creates has no chunk multivector")
	}
	old := createRequest("c", 384)
	delete(old.VectorsConfig.GetParamsMap().GetMap(), chunkVector)
	if err := checkLayout("c", 384, info(old)); err != nil {
		t.Fatalf("a collection without chunk vectors is refused: %v", err)
	}
	if hasChunkVector(384, info(old)) {
		t.Fatal("a collection without the chunk multivector is said to have it")
	}
	plain := createRequest("c", 384)
	plain.VectorsConfig.GetParamsMap().GetMap()[chunkVector].MultivectorConfig = nil
	if hasChunkVector(384, info(plain)) {
		t.Fatal("a chunk vector that is not a multivector is accepted")
	}
}

func TestPointChunkVectors(t *testing.T) {
	m := fullMemory()
	m.ChunkVectors = [][]float32{{0, 2, 0, 0}, {0, 0, 0, 1}}
	s := &Store{dim: 4, chunks: true}
	pt, err := s.point(m)
	if err != nil {
		t.Fatal(err)
	}
	multi := pt.GetVectors().GetVectors().GetVectors()[chunkVector].GetMultiDense().GetVectors()
	var got [][]float32
	for _, v := range multi {
		got = append(got, v.GetData())
	}
	// The chunks, normalised, then the dense vector: MAX_SIM is the best.
	want := [][]float32{{0, 1, 0, 0}, {0, 0, 0, 1}, {0.6, 0, 0.8, 0}}
	if len(got) != len(want) {
		t.Fatalf("multivector = %v, want %v", got, want)
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(float64(got[i][j]-want[i][j])) > 1e-6 {
				t.Fatalf("multivector = %v, want %v", got, want)
			}
		}
	}
	// Decoded back, the dense vector is dropped from the chunks.
	out := &qdrant.VectorOutput{Vector: &qdrant.VectorOutput_MultiDense{MultiDense: &qdrant.MultiDenseVector{Vectors: multi}}}
	if back := decodeChunks(out); len(back) != 2 || !slices.Equal(back[1], []float32{0, 0, 0, 1}) {
		t.Fatalf("decoded chunks = %v", back)
	}
	// A collection without the multivector keeps no chunks but still
	// checks them.
	old := &Store{dim: 4}
	if pt, err := old.point(m); err != nil || pt.GetVectors().GetVectors().GetVectors()[chunkVector] != nil {
		t.Fatalf("old collection: %v, %v", pt, err)
	}
	for _, bad := range []memory.Memory{
		func() memory.Memory { b := m; b.ChunkVectors = [][]float32{{1, 0, 0}}; return b }(),
		func() memory.Memory { b := m; b.Vector = nil; return b }(),
	} {
		if _, err := old.point(bad); !errors.Is(err, memory.ErrInvalid) {
			t.Fatalf("bad chunk vectors: err = %v, want memory.ErrInvalid", err)
		}
		if _, err := s.point(bad); !errors.Is(err, memory.ErrInvalid) {
			t.Fatalf("bad chunk vectors: err = %v, want memory.ErrInvalid", err)
		}
	}
}

func TestMergeChunkHits(t *testing.T) {
	hit := func(id string, score float64) store.Hit {
		return store.Hit{Memory: memory.Memory{ID: id}, Score: score}
	}
	dense := []store.Hit{hit("b", 0.8), hit("a", 0.1), hit("c", 0.05)}
	chunks := []store.Hit{hit("a", 0.95), hit("d", 0.3)}
	got := mergeChunkHits(3, dense, chunks)
	var ids []string
	for _, h := range got {
		ids = append(ids, h.Memory.ID)
	}
	if !slices.Equal(ids, []string{"a", "b", "d"}) || got[0].Score != 0.95 {
		t.Fatalf("merged = %v (top score %v), want [a b d] with a at 0.95", ids, got[0].Score)
	}
	tied := mergeChunkHits(2, []store.Hit{hit("z", 0.5)}, []store.Hit{hit("y", 0.5)})
	if tied[0].Memory.ID != "y" {
		t.Fatalf("ties rank by id: got %s first", tied[0].Memory.ID)
	}
}
