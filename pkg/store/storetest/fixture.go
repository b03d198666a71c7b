package storetest

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// scoreTolerance absorbs float32 arithmetic in the store.
const scoreTolerance = 1e-4

// baseTime has milliseconds, which every store must keep.
var baseTime = time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// id is a deterministic, UUID-shaped id for the n-th memory of a test.
func id(t *testing.T, n int) string {
	return memory.DeterministicID("storetest", t.Name(), strconv.Itoa(n))
}

// vec pads hand-made components with zeros to the harness width.
func (e *env) vec(xs ...float32) []float32 {
	v := make([]float32, e.h.Dim)
	copy(v, xs)
	return v
}

// basic returns a minimal valid memory with a vector.
func (e *env) basic(t *testing.T, tenant string, n int, v []float32) memory.Memory {
	return memory.Memory{
		ID:         id(t, n),
		Tenant:     tenant,
		Namespace:  memory.DefaultNamespace,
		Content:    "memory number " + strconv.Itoa(n),
		Domain:     memory.DomainGeneral,
		Type:       memory.TypeFact,
		Kind:       memory.KindSemantic,
		Layer:      memory.LayerWorking,
		Importance: 0.5,
		Confidence: memory.ConfidenceUnknown,
		Source:     memory.SourceAPI,
		CreatedAt:  baseTime.Add(time.Duration(n) * time.Minute),
		ModifiedAt: baseTime.Add(time.Duration(n) * time.Minute),
		Vector:     v,
	}
}

// full returns a memory with every field set, its vector unit length.
func (e *env) full(t *testing.T, tenant string, n int) memory.Memory {
	return FullMemory(id(t, n), tenant, baseTime, e.vec(0.6, 0, 0.8, 0))
}

// FullMemory is a memory with every field set, with awkward values where
// they exist (non-ASCII content, archived, superseded, quarantined, an epoch beyond
// float64's exact integers), for round-trip tests of any engine.
func FullMemory(id, tenant string, base time.Time, vec []float32) memory.Memory {
	invalid, until := base.Add(72*time.Hour), base.Add(30*time.Hour+123456789)
	return memory.Memory{
		ID:              id,
		Tenant:          tenant,
		Namespace:       "proj/alpha:web",
		Subject:         "user-42",
		Channel:         "cli",
		Session:         "sess-7",
		Key:             "editor/theme",
		Content:         "Prefers dark themes in every editor — “always”.",
		Domain:          memory.DomainUserPreferences,
		Type:            memory.TypePreference,
		Kind:            memory.KindSemantic,
		Layer:           memory.LayerCore,
		Importance:      0.875,
		Confidence:      memory.ConfidenceExplicit,
		AccessCount:     3,
		RepetitionCount: 2,
		SuccessCount:    1,
		Tags:            []string{"ui", "editor"},
		Scope:           []string{"src/**/*.go", "*.md"},
		Evidence:        "user: I always use dark themes",
		SourceIDs:       []string{"msg-1", "msg-2"},
		Source:          memory.SourceTurn,
		CreatedAt:       base,
		ModifiedAt:      base.Add(time.Hour),
		LastAccessed:    base.Add(2 * time.Hour),
		ValidFrom:       base.Add(-time.Hour),
		InvalidAt:       &invalid,
		ValidUntil:      &until,
		Archived:        true,
		EmbeddingModel:  "all-MiniLM-L6-v2",
		SupersededBy:    memory.DeterministicID("storetest", "successor", id),
		DerivedFrom:     []string{memory.DeterministicID("storetest", "origin-1", id), "origin-2"},
		Epoch:           1<<53 + 1,
		Quarantine:      "instruction override",
		Vector:          vec,
	}
}

func upsert(t *testing.T, s store.Store, mems ...memory.Memory) {
	t.Helper()
	if err := s.Upsert(t.Context(), mems); err != nil {
		t.Fatalf("upsert %d memories: %v", len(mems), err)
	}
}

func get(t *testing.T, s store.Store, tenant, id string) memory.Memory {
	t.Helper()
	m, err := s.Get(t.Context(), tenant, id)
	if err != nil {
		t.Fatalf("get %s/%s: %v", tenant, id, err)
	}
	return m
}

func count(t *testing.T, s store.Store, tenant string, f store.Filter) int {
	t.Helper()
	n, err := s.Count(t.Context(), tenant, f)
	if err != nil {
		t.Fatalf("count %s: %v", tenant, err)
	}
	return n
}

func scrollIDs(t *testing.T, s store.Store, tenant string, f store.Filter) []string {
	t.Helper()
	var ids []string
	err := s.Scroll(t.Context(), tenant, f, func(m memory.Memory) error {
		if m.Tenant != tenant {
			t.Errorf("scroll of tenant %s returned memory %s of tenant %s", tenant, m.ID, m.Tenant)
		}
		ids = append(ids, m.ID)
		return nil
	})
	if err != nil {
		t.Fatalf("scroll %s: %v", tenant, err)
	}
	return ids
}

func search(t *testing.T, s store.Store, q store.Query) []store.Hit {
	t.Helper()
	hits, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %s k=%d: %v", q.Tenant, q.K, err)
	}
	for i, h := range hits {
		if h.Memory.Tenant != q.Tenant {
			t.Errorf("search of tenant %s returned memory %s of tenant %s", q.Tenant, h.Memory.ID, h.Memory.Tenant)
		}
		if i > 0 && h.Score > hits[i-1].Score+scoreTolerance {
			t.Errorf("hit %d scores %.6f, above hit %d's %.6f: not best first", i, h.Score, i-1, hits[i-1].Score)
		}
	}
	return hits
}

func hitIDs(hits []store.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Memory.ID
	}
	return ids
}

func wantNotFound(t *testing.T, s store.Store, tenant, id string) {
	t.Helper()
	_, err := s.Get(t.Context(), tenant, id)
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get %s/%s: got error %v, want store.ErrNotFound", tenant, id, err)
	}
}

// sameIDs compares id lists ignoring order.
func sameIDs(got, want []string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// unit returns v scaled to length 1 (what a cosine store keeps).
func unit(v []float32) []float32 {
	var ss float64
	for _, f := range v {
		ss += float64(f) * float64(f)
	}
	out := make([]float32, len(v))
	for i, f := range v {
		out[i] = float32(float64(f) / math.Sqrt(ss))
	}
	return out
}

// cosine is the reference similarity, in float64.
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// checkMemory reports every field of got that differs from want. Times
// compare as instants; the vector compares as a unit vector, within tolerance.
func checkMemory(t *testing.T, what string, got, want memory.Memory) {
	t.Helper()
	gv, wv := got.Vector, want.Vector
	if len(wv) > 0 {
		wv = unit(wv)
	}
	if len(gv) != len(wv) {
		t.Errorf("%s: vector has %d dims, want %d", what, len(gv), len(wv))
	} else {
		for i := range gv {
			if math.Abs(float64(gv[i]-wv[i])) > 1e-5 {
				t.Errorf("%s: vector[%d] = %v, want %v", what, i, gv[i], wv[i])
				break
			}
		}
	}
	if len(got.ChunkVectors) != len(want.ChunkVectors) {
		t.Errorf("%s: %d chunk vectors, want %d", what, len(got.ChunkVectors), len(want.ChunkVectors))
	} else {
		for k := range got.ChunkVectors {
			g, w := got.ChunkVectors[k], want.ChunkVectors[k]
			if len(g) != len(w) {
				t.Errorf("%s: chunk vector %d has %d dims, want %d", what, k, len(g), len(w))
			} else if c := cosine(g, w); c < 1-1e-5 {
				t.Errorf("%s: chunk vector %d differs (cosine %.6f)", what, k, c)
			}
		}
	}
	g, w := normalForm(got), normalForm(want)
	gr, wr := reflect.ValueOf(g), reflect.ValueOf(w)
	for i := range gr.NumField() {
		if !reflect.DeepEqual(gr.Field(i).Interface(), wr.Field(i).Interface()) {
			t.Errorf("%s: %s = %#v, want %#v", what, gr.Type().Field(i).Name, gr.Field(i).Interface(), wr.Field(i).Interface())
		}
	}
}

// normalForm drops the vector and puts times in UTC without monotonic
// readings, so that DeepEqual compares instants.
func normalForm(m memory.Memory) memory.Memory {
	m.Vector, m.ChunkVectors = nil, nil
	utc := func(t time.Time) time.Time { return t.Round(0).UTC() }
	m.CreatedAt, m.ModifiedAt = utc(m.CreatedAt), utc(m.ModifiedAt)
	m.LastAccessed, m.ValidFrom = utc(m.LastAccessed), utc(m.ValidFrom)
	if m.InvalidAt != nil {
		v := utc(*m.InvalidAt)
		m.InvalidAt = &v
	}
	if m.ValidUntil != nil {
		v := utc(*m.ValidUntil)
		m.ValidUntil = &v
	}
	return m
}

// ctxCancelled returns a context that is already cancelled.
func ctxCancelled(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}
