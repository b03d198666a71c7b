package embedder

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// perModel is a store that keeps another model's memories in a second
// store its searches do not reach, as Qdrant's collection per model does;
// Adopt follows store.Adopter's contract (write here, then delete there;
// a memory already here wins). failAfter > 0 fails the call after that
// many memories, once, to check that a run interrupted mid-adoption loses
// nothing.
type perModel struct {
	store.Store
	old       store.Store
	failAfter int
}

var errAdoptCut = errors.New("adoption cut short")

func (p *perModel) Adopt(ctx context.Context, tenant string) (int, error) {
	var mems []memory.Memory
	if err := p.old.Scroll(ctx, tenant, store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory) error {
		mems = append(mems, m)
		return nil
	}); err != nil {
		return 0, err
	}
	moved := 0
	for _, m := range mems {
		if p.failAfter > 0 && moved == p.failAfter {
			p.failAfter = 0
			return moved, errAdoptCut
		}
		if _, err := p.Get(ctx, tenant, m.ID); errors.Is(err, store.ErrNotFound) {
			m.Vector, m.EmbeddingModel = nil, ""
			if err := p.Upsert(ctx, []memory.Memory{m}); err != nil {
				return moved, err
			}
			moved++
		} else if err != nil {
			return moved, err
		}
		if err := p.old.Delete(ctx, tenant, m.ID); err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// TestReindexAdoptsOtherModelsMemories: with a store that keeps models
// apart, reindex first brings the tenant's memories over (found by BM25
// at once), then embeds them with the new model; an interrupted adoption
// is finished by the next run, and a memory already in the new place is
// not overwritten by its old copy.
func TestReindexAdoptsOtherModelsMemories(t *testing.T) {
	cfg := testConfig()
	cfg.ReindexBatch = 2
	a := newFixtureWith(t, cfg, embedtest.Terms{}) // the old model's place
	i := 0
	for _, content := range reindexFacts {
		i++
		if err := a.handle(t, fact(content, "acme:a"+string(rune('0'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	minilm := loadModel(t)
	fresh := newFixtureWith(t, cfg, minilm) // the new model's (empty) place
	ctx := context.Background()
	// One memory was already written to the new place (by the new model):
	// adoption keeps it.
	kept := fact(reindexFacts["vim"], "acme:new")
	if err := fresh.handle(t, kept); err != nil {
		t.Fatal(err)
	}
	place := &perModel{Store: fresh.store, old: a.store, failAfter: 2}
	b := fresh.on(t, minilm)
	b.e.store = place

	if err := b.e.Reindex(ctx, "acme", "first", nil); !errors.Is(err, errAdoptCut) {
		t.Fatalf("interrupted adoption: %v", err)
	}
	ids := map[string]bool{}
	for _, m := range append(fresh.all(t), a.all(t)...) {
		ids[m.ID] = true
	}
	if len(ids) != len(reindexFacts) {
		t.Fatalf("%d distinct memories over both places after the cut, want %d", len(ids), len(reindexFacts))
	}
	if err := b.e.Reindex(ctx, "acme", "second", nil); err != nil {
		t.Fatal(err)
	}
	if left := a.all(t); len(left) != 0 {
		t.Fatalf("%d memories left in the old place", len(left))
	}
	mems := fresh.all(t)
	if len(mems) != len(reindexFacts) {
		t.Fatalf("%d memories in the new place, want %d", len(mems), len(reindexFacts))
	}
	for _, m := range mems {
		if m.EmbeddingModel != minilm.Model() || len(m.Vector) != minilm.Dim() {
			t.Fatalf("%s on %q with %d dims after reindex", m.ID, m.EmbeddingModel, len(m.Vector))
		}
		if m.ID == kept.Memory.ID && !slices.Contains(m.SourceIDs, "acme:new") {
			t.Fatalf("the new place's own copy of %s was replaced by the old one: %+v", m.ID, m.SourceIDs)
		}
	}
	fresh.checkFindable(t, minilm)
	if got := counterValue(t, b.e.reindexN.WithLabelValues("adopted")); got != float64(len(reindexFacts)-1) {
		t.Fatalf("adopted counter = %g, want %d", got, len(reindexFacts)-1)
	}
}
