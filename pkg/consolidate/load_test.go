package consolidate

import (
	"reflect"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// TestLoadWithoutVectorsMatchesScroll loads a tenant from the local store
// (which scrolls without vectors, then reads the changed memories' ones)
// and through a wrapper that only has Scroll: both runs must hold the same
// memories, vectors and stamped states.
func TestLoadWithoutVectorsMatchesScroll(t *testing.T) {
	ls, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ls.Close() })
	last := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for i := range 40 {
		at := last.Add(time.Duration(i-20) * time.Minute) // half before the last epoch, half after
		m := memory.Memory{ID: memory.DeterministicID("load", string(rune('a'+i%26)), at.String()), Tenant: tenant,
			Namespace: "default", Subject: "u1", Content: "memory " + at.String(), Domain: memory.DomainGeneral,
			Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerBuffer, Importance: 0.5,
			Confidence: memory.ConfidenceInferred, Source: memory.SourceRule, CreatedAt: at, ModifiedAt: at, ValidFrom: at,
			Vector: []float32{float32(i + 1), 1, float32(i % 3), 0.5}}
		switch i % 5 {
		case 1:
			m.Epoch = 1 // seen by an epoch before
		case 2:
			m.Archived = true
		case 3:
			m.Vector = nil // not embedded yet
		}
		ms = append(ms, m)
	}
	if err := ls.Upsert(t.Context(), ms); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.Store(ls).(store.MetaScroller); !ok {
		t.Fatal("the local store has no ScrollMeta: the test compares nothing")
	}
	load := func(st store.Store) *run {
		t.Helper()
		r := newRun(&Consolidator{store: st}, tenant, "e2", 2, last.Add(30*time.Minute), []time.Time{last})
		if err := r.load(t.Context()); err != nil {
			t.Fatal(err)
		}
		return r
	}
	meta := load(ls)
	plain := load(struct{ store.Store }{ls})
	withVec := 0
	for _, m := range meta.order {
		if len(m.Vector) > 0 {
			withVec++
		}
	}
	if withVec == 0 || withVec == len(meta.order) || len(meta.before) == 0 {
		t.Fatalf("%d of %d loaded memories have vectors, %d stamped: the test compares nothing", withVec, len(meta.order), len(meta.before))
	}
	if len(meta.order) != len(ms) || !reflect.DeepEqual(meta.order, plain.order) || !reflect.DeepEqual(meta.mems, plain.mems) ||
		!reflect.DeepEqual(meta.before, plain.before) || meta.stats != plain.stats {
		t.Fatalf("loading without vectors differs from loading by Scroll: %d/%d memories, %d/%d stamped",
			len(meta.order), len(plain.order), len(meta.before), len(plain.before))
	}
}
