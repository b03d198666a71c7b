package cache

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEmbedHitsAndMisses(t *testing.T) {
	ctx := context.Background()
	m := newHashModel("m1")
	c := New(m, NewLRU(0, 0))

	steps := []struct {
		name         string
		texts        []string
		wantComputed []string
		hits, misses int64
	}{
		{"cold", []string{"a", "b"}, []string{"a", "b"}, 0, 2},
		{"one new", []string{"b", "c"}, []string{"c"}, 1, 3},
		{"all cached", []string{"c", "a", "b"}, nil, 4, 3},
		{"duplicates computed once", []string{"d", "d", "a"}, []string{"d"}, 5, 5},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := len(m.Calls())
			got, err := c.Embed(ctx, s.texts)
			if err != nil {
				t.Fatalf("embed: %v", err)
			}
			if len(got) != len(s.texts) {
				t.Fatalf("got %d vectors for %d texts", len(got), len(s.texts))
			}
			for i, text := range s.texts {
				if !slices.Equal(got[i], m.vector(text)) {
					t.Errorf("vector %d (%q) is not the model's", i, text)
				}
			}
			calls := m.Calls()[before:]
			switch {
			case s.wantComputed == nil && len(calls) != 0:
				t.Errorf("model called with %q, want no call", calls)
			case s.wantComputed != nil && (len(calls) != 1 || !slices.Equal(calls[0], s.wantComputed)):
				t.Errorf("model calls %q, want one call with %q", calls, s.wantComputed)
			}
			if c.Hits() != s.hits || c.Misses() != s.misses {
				t.Errorf("hits/misses = %d/%d, want %d/%d", c.Hits(), c.Misses(), s.hits, s.misses)
			}
		})
	}
	if c.BackendErrors() != 0 {
		t.Fatalf("backend errors = %d, want 0", c.BackendErrors())
	}
}

func TestKeyIncludesModel(t *testing.T) {
	if Key("m1", "text") == Key("m2", "text") {
		t.Fatal("two models share a key")
	}
	if Key("ab", "c") == Key("a", "bc") {
		t.Fatal("model and text run together in the key")
	}
	if k := Key("m", "t"); len(k) != 64 || k != Key("m", "t") {
		t.Fatalf("key %q is not a stable hex SHA-256", k)
	}

	ctx := context.Background()
	backend := NewLRU(0, 0)
	m1, m2 := newHashModel("m1"), newHashModel("m2")
	c1, c2 := New(m1, backend), New(m2, backend)
	if _, err := c1.Embed(ctx, []string{"shared text"}); err != nil {
		t.Fatal(err)
	}
	got, err := c2.Embed(ctx, []string{"shared text"})
	if err != nil {
		t.Fatal(err)
	}
	if c2.Hits() != 0 || len(m2.Calls()) != 1 {
		t.Fatalf("second model served from the first model's cache: hits %d, calls %d", c2.Hits(), len(m2.Calls()))
	}
	if !slices.Equal(got[0], m2.vector("shared text")) {
		t.Fatal("second model got the first model's vector")
	}
}

func TestEmbedModelErrorIsReturned(t *testing.T) {
	m := newHashModel("m")
	m.err = errModel
	_, err := New(m, NewLRU(0, 0)).Embed(context.Background(), []string{"x"})
	if !errors.Is(err, errModel) {
		t.Fatalf("err = %v, want the model's error", err)
	}
}

func TestEmbedRecomputesVectorOfWrongWidth(t *testing.T) {
	ctx := context.Background()
	m := newHashModel("m")
	backend := NewLRU(0, 0)
	if err := backend.SetMulti(ctx, map[string][]float32{Key("m", "x"): {1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	c := New(m, backend)
	got, err := c.Embed(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0], m.vector("x")) || c.Misses() != 1 {
		t.Fatalf("stale vector served: %v (misses %d)", got[0], c.Misses())
	}
}

func TestEmbedEmpty(t *testing.T) {
	m := newHashModel("m")
	got, err := New(m, NewLRU(0, 0)).Embed(context.Background(), nil)
	if err != nil || len(got) != 0 || len(m.Calls()) != 0 {
		t.Fatalf("embed nothing = %v, %v with %d model calls", got, err, len(m.Calls()))
	}
}

// flakyBackend is an LRU that can be taken down; it counts the calls that
// reach it.
type flakyBackend struct {
	*LRU
	down  atomic.Bool
	calls atomic.Int64
}

var errDown = errors.New("backend down")

func (b *flakyBackend) GetMulti(ctx context.Context, keys []string) (map[string][]float32, error) {
	b.calls.Add(1)
	if b.down.Load() {
		return nil, errDown
	}
	return b.LRU.GetMulti(ctx, keys)
}

func (b *flakyBackend) SetMulti(ctx context.Context, entries map[string][]float32) error {
	b.calls.Add(1)
	if b.down.Load() {
		return errDown
	}
	return b.LRU.SetMulti(ctx, entries)
}

func TestEmbedDegradesWhenBackendFails(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newHashModel("m")
	b := &flakyBackend{LRU: NewLRU(0, 0)}
	c := New(m, b, WithPause(10*time.Second), WithClock(func() time.Time { return clock }))

	embed := func(texts ...string) {
		t.Helper()
		got, err := c.Embed(ctx, texts)
		if err != nil {
			t.Fatalf("embed %q: %v", texts, err)
		}
		for i, text := range texts {
			if !slices.Equal(got[i], m.vector(text)) {
				t.Fatalf("wrong vector for %q", text)
			}
		}
	}
	embed("a") // miss, read + write
	b.down.Store(true)
	embed("a", "b") // read fails: both computed, no write
	if c.BackendErrors() != 1 || b.calls.Load() != 3 || c.Misses() != 3 {
		t.Fatalf("after the failure: errors %d, backend calls %d, misses %d; want 1, 3, 3", c.BackendErrors(), b.calls.Load(), c.Misses())
	}
	clock = clock.Add(9 * time.Second)
	embed("a") // paused: backend not called
	if b.calls.Load() != 3 || c.Misses() != 4 {
		t.Fatalf("backend called %d times during the pause, misses %d", b.calls.Load(), c.Misses())
	}
	b.down.Store(false)
	clock = clock.Add(time.Second)
	embed("a", "c") // retried: a is a hit
	if c.Hits() != 1 || b.calls.Load() != 5 || c.BackendErrors() != 1 {
		t.Fatalf("after the pause: hits %d, backend calls %d, errors %d; want 1, 5, 1", c.Hits(), b.calls.Load(), c.BackendErrors())
	}
}

func TestEmbedConcurrent(t *testing.T) {
	m := newHashModel("m")
	c := New(m, NewLRU(50, 0))
	texts := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				text := texts[(g+i)%len(texts)]
				got, err := c.Embed(context.Background(), []string{text, "common"})
				if err != nil {
					errs <- err
					return
				}
				if !slices.Equal(got[0], m.vector(text)) {
					errs <- errors.New("wrong vector for " + text)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if c.Hits()+c.Misses() != 16*50*2 || c.Hits() == 0 {
		t.Fatalf("hits %d + misses %d, want %d with some hits", c.Hits(), c.Misses(), 16*50*2)
	}
}
