package remote

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestClientMatchesStore checks that every call through the client returns
// exactly what the served store returns directly.
func TestClientMatchesStore(t *testing.T) {
	ctx := context.Background()
	st, c, _ := pair(t)
	mems := append(fullMemories("t1", 40, 16), fullMemories("t2", 3, 16)...)
	if err := c.Upsert(ctx, mems); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	filters := map[string]store.Filter{
		"none":       {},
		"archived":   {IncludeArchived: true},
		"superseded": {IncludeSuperseded: true},
		"everything": everything,
		"narrow":     {Namespaces: []string{"proj/a"}, Types: []memory.Type{memory.TypeWorkflow}, Tags: []string{"go"}, CreatedAfter: mems[5].CreatedAt},
		"nothing":    {Subjects: []string{"bob"}},
	}

	t.Run("get", func(t *testing.T) {
		for _, want := range mems {
			got, err := c.Get(ctx, want.Tenant, want.ID)
			if err != nil {
				t.Fatalf("get %s: %v", want.ID, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("get %s:\n got %+v\nwant %+v", want.ID, got, want)
			}
			if !sameBits(got.Vector, want.Vector) {
				t.Fatalf("get %s: vector bits differ", want.ID)
			}
		}
	})
	for name, f := range filters {
		t.Run("scroll/"+name, func(t *testing.T) {
			var got []memory.Memory
			if err := c.Scroll(ctx, "t1", f, func(m memory.Memory) error { got = append(got, m); return nil }); err != nil {
				t.Fatalf("scroll: %v", err)
			}
			want := st.sorted("t1", f)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("scroll: got %d memories, want %d (or contents differ)", len(got), len(want))
			}
		})
		t.Run("count/"+name, func(t *testing.T) {
			got, err := c.Count(ctx, "t1", f)
			if err != nil {
				t.Fatalf("count: %v", err)
			}
			if want := len(st.sorted("t1", f)); got != want {
				t.Fatalf("count = %d, want %d", got, want)
			}
		})
		t.Run("search/"+name, func(t *testing.T) {
			q := store.Query{Tenant: "t1", Vector: testVector(7, 16), K: 5, Filter: f}
			got, err := c.Search(ctx, q)
			if err != nil {
				t.Fatalf("search: %v", err)
			}
			want, err := st.Search(ctx, q)
			if err != nil {
				t.Fatalf("direct search: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("search:\n got %+v\nwant %+v", got, want)
			}
		})
	}
	for name, f := range filters {
		t.Run("search_text/"+name, func(t *testing.T) {
			q := store.TextQuery{Tenant: "t1", Text: "memory content workflow", K: 5, Filter: f}
			got, err := c.SearchText(ctx, q)
			if err != nil {
				t.Fatalf("search text: %v", err)
			}
			want, err := st.SearchText(ctx, q)
			if err != nil {
				t.Fatalf("direct search text: %v", err)
			}
			if name != "nothing" && len(want) == 0 {
				t.Fatal("the query matches nothing, so the test proves nothing")
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("search text:\n got %+v\nwant %+v", got, want)
			}
		})
	}
	t.Run("tenants", func(t *testing.T) {
		got, err := c.Tenants(ctx)
		if err != nil {
			t.Fatalf("tenants: %v", err)
		}
		if want := []string{"t1", "t2"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("tenants = %v, want %v", got, want)
		}
	})
	t.Run("delete", func(t *testing.T) {
		if err := c.Delete(ctx, "t2", mems[40].ID, mems[41].ID, "absent"); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := c.Get(ctx, "t2", mems[40].ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("get after delete: err = %v, want ErrNotFound", err)
		}
		if n, _ := c.Count(ctx, "t2", everything); n != 1 {
			t.Fatalf("count after delete = %d, want 1", n)
		}
	})
}

func TestEmptyCallsReachServer(t *testing.T) {
	ctx := context.Background()
	st, c, _ := pair(t)
	if err := c.Upsert(ctx, nil); err != nil {
		t.Fatalf("empty upsert: %v", err)
	}
	if err := c.Delete(ctx, "t1"); err != nil {
		t.Fatalf("empty delete: %v", err)
	}
	if st.count(opUpsert) != 1 || st.count(opDelete) != 1 {
		t.Fatalf("server saw %d upserts and %d deletes, want 1 each", st.count(opUpsert), st.count(opDelete))
	}
	// So a closed store says so even for an empty batch.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Upsert(ctx, nil); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("empty upsert on closed store: err = %v, want ErrClosed", err)
	}
}

func TestClientClose(t *testing.T) {
	ctx := context.Background()
	st, c, ns := pair(t)
	if err := c.Upsert(ctx, fullMemories("t1", 1, 4)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	calls := st.count(opGet)
	if _, err := c.Get(ctx, "t1", "m-00000"); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("get after close: err = %v, want ErrClosed", err)
	}
	if st.count(opGet) != calls {
		t.Fatalf("a closed client still sent a request")
	}
	// The shared store stays open for everyone else.
	other := NewClient(connect(t, ns))
	if _, err := other.Get(ctx, "t1", "m-00000"); err != nil {
		t.Fatalf("get from another client: %v", err)
	}
}

func TestConcurrentClients(t *testing.T) {
	ctx := context.Background()
	_, c, _ := pair(t, WithMaxInFlight(4))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tenant := "t" + string(rune('a'+g))
			mems := fullMemories(tenant, 30, 8)
			for i := range mems {
				if err := c.Upsert(ctx, mems[i:i+1]); err != nil {
					errs <- err
					return
				}
				if _, err := c.Get(ctx, tenant, mems[i].ID); err != nil {
					errs <- err
					return
				}
			}
			if n, err := c.Count(ctx, tenant, everything); err != nil || n != 30 {
				errs <- errors.Join(err, errors.New("count mismatch"))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
