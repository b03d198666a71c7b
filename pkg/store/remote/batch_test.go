package remote

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func TestLargeUpsertIsSplit(t *testing.T) {
	ctx := context.Background()
	st, c, _ := pair(t)
	mems := fullMemories("t1", 3000, 384)
	if err := c.Upsert(ctx, mems); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	// 3,000 × 384 float32 is 4.6 MB of vectors alone: over 1 MiB, so at least
	// five requests.
	if n := st.count(opUpsert); n < 5 {
		t.Fatalf("server saw %d upsert requests, want the batch split into at least 5", n)
	}
	got := st.sorted("t1", everything)
	if len(got) != len(mems) {
		t.Fatalf("stored %d memories, want %d", len(got), len(mems))
	}
	for i := range mems {
		if !reflect.DeepEqual(got[i], mems[i]) || !sameBits(got[i].Vector, mems[i].Vector) {
			t.Fatalf("memory %d differs after the split upsert", i)
		}
	}

	t.Run("delete many", func(t *testing.T) {
		ids := make([]string, 0, 15000)
		for i := range 15000 {
			ids = append(ids, fmt.Sprintf("%s-%0100d", "absent", i)) // ~110 bytes each: 1.6 MB of ids
		}
		for _, m := range mems[:1500] {
			ids = append(ids, m.ID)
		}
		before := st.count(opDelete)
		if err := c.Delete(ctx, "t1", ids...); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if n := st.count(opDelete) - before; n < 2 {
			t.Fatalf("delete took %d requests, want the ids split", n)
		}
		if n, _ := c.Count(ctx, "t1", everything); n != 1500 {
			t.Fatalf("count after delete = %d, want 1500", n)
		}
	})
}

func TestScrollPages(t *testing.T) {
	ctx := context.Background()
	st, c, _ := pair(t, WithScrollPageSize(100))
	if err := c.Upsert(ctx, fullMemories("t1", 1150, 4)); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	want := st.sorted("t1", everything)
	var seen []memory.Memory
	if err := c.Scroll(ctx, "t1", everything, func(m memory.Memory) error {
		seen = append(seen, m)
		return nil
	}); err != nil {
		t.Fatalf("scroll: %v", err)
	}
	if len(seen) != 1150 || !reflect.DeepEqual(seen, want) {
		t.Fatalf("scroll returned %d memories, want all 1150 in id order", len(seen))
	}
	if n := st.count(opScroll); n != 12 {
		t.Fatalf("scroll took %d requests, want 12 pages of at most 100", n)
	}
}

// TestSplitUpsertRejectsBeforeWriting: one bad memory at the end of a batch
// too big for one request writes nothing, as a single request would not.
func TestSplitUpsertRejectsBeforeWriting(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		spoil func(*memory.Memory)
		field string
	}{
		{"invalid record", func(m *memory.Memory) { m.Layer = "attic" }, "layer"},
		{"not finite", func(m *memory.Memory) { m.Vector[3] = float32(nan()) }, ""},
		{"mixed widths", func(m *memory.Memory) { m.Vector = m.Vector[:100] }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, c, _ := pair(t)
			mems := fullMemories("t1", 600, 384) // about 1.7 MB: two requests
			tt.spoil(&mems[len(mems)-1])
			err := c.Upsert(ctx, mems)
			if !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("upsert: err = %v, want ErrInvalid", err)
			}
			var fe *memory.FieldError
			if tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field) {
				t.Fatalf("upsert: err = %v, want a FieldError on %s", err, tt.field)
			}
			if n := st.count(opUpsert); n != 0 {
				t.Fatalf("server saw %d upserts, want none", n)
			}
		})
	}
}

func TestOversizedMemoryIsRejected(t *testing.T) {
	ns := startNATS(t, func(o *server.Options) { o.MaxPayload = 16 << 10 })
	st := newMemStore()
	serve(t, ns, st)
	c := NewClient(connect(t, ns))
	m := fullMemory("t1", 1, 4096) // 16 KiB of vector alone
	err := c.Upsert(context.Background(), []memory.Memory{m})
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("upsert: err = %v, want a size error", err)
	}
	if st.count(opUpsert) != 0 {
		t.Fatalf("server saw an upsert")
	}
}

// TestChunkedReplies shrinks the max payload so replies need several
// messages: search results, a scroll page, a single large memory.
func TestChunkedReplies(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t, func(o *server.Options) { o.MaxPayload = 32 << 10 })
	st := newMemStore()
	serve(t, ns, st)
	c := NewClient(connect(t, ns))

	mems := fullMemories("t1", 300, 384)
	big := fullMemory("t1", 999, 384)
	big.Content = strings.Repeat("ü€", memory.MaxContentChars/2) // 20 KiB of UTF-8, 3 KiB of vector
	mems = append(mems, big)
	if err := c.Upsert(ctx, mems); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	if n := st.count(opUpsert); n < 20 {
		t.Fatalf("upsert took %d requests, want a split into many at 32 KiB", n)
	}
	t.Run("get", func(t *testing.T) {
		got, err := c.Get(ctx, "t1", big.ID)
		if err != nil || !reflect.DeepEqual(got, big) {
			t.Fatalf("get big memory: %v (equal: %v)", err, reflect.DeepEqual(got, big))
		}
	})
	t.Run("search", func(t *testing.T) {
		q := store.Query{Tenant: "t1", Vector: testVector(5, 384), K: 200, Filter: everything}
		got, err := c.Search(ctx, q)
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		want, _ := st.Search(ctx, q)
		if len(got) != 200 || !reflect.DeepEqual(got, want) {
			t.Fatalf("search returned %d hits (equal: %v), want 200", len(got), reflect.DeepEqual(got, want))
		}
	})
	t.Run("scroll", func(t *testing.T) {
		var n int
		err := c.Scroll(ctx, "t1", everything, func(m memory.Memory) error {
			n++
			return nil
		})
		if err != nil || n != len(mems) {
			t.Fatalf("scroll saw %d memories (%v), want %d", n, err, len(mems))
		}
	})
}

func TestScrollStopsEarly(t *testing.T) {
	ctx := context.Background()
	st, c, _ := pair(t, WithScrollPageSize(100))
	if err := c.Upsert(ctx, fullMemories("t1", 1000, 8)); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	var seen int
	err := c.Scroll(ctx, "t1", everything, func(m memory.Memory) error {
		seen++
		if seen == 150 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("scroll: err = %v, want fn's error returned as is", err)
	}
	if n := st.count(opScroll); n != 2 {
		t.Fatalf("scroll made %d requests, want 2 (it must stop at the page fn stopped in)", n)
	}
}

// TestScrollSeesConcurrentDeletes: the id cursor neither repeats nor skips
// memories that stay put while others go.
func TestScrollSeesConcurrentDeletes(t *testing.T) {
	ctx := context.Background()
	_, c, _ := pair(t, WithScrollPageSize(10))
	mems := fullMemories("t1", 100, 4)
	if err := c.Upsert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	var seen []string
	err := c.Scroll(ctx, "t1", everything, func(m memory.Memory) error {
		seen = append(seen, m.ID)
		if len(seen) == 15 {
			// Delete the one just seen and one later: the later one must not appear.
			return c.Delete(ctx, "t1", m.ID, mems[50].ID)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scroll: %v", err)
	}
	if len(seen) != 99 {
		t.Fatalf("scroll saw %d memories, want 99", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("ids out of order or repeated: %s after %s", seen[i], seen[i-1])
		}
	}
}

func TestPack(t *testing.T) {
	items := func(sizes ...int) [][]byte {
		out := make([][]byte, len(sizes))
		for i, n := range sizes {
			out[i] = make([]byte, n)
		}
		return out
	}
	tests := []struct {
		name  string
		items [][]byte
		limit int
		want  [][2]int
		err   bool
	}{
		{"empty", nil, 10, [][2]int{{0, 0}}, false},
		{"one", items(4), 10, [][2]int{{0, 1}}, false},
		{"exact fit with comma", items(4, 5), 10, [][2]int{{0, 2}}, false},
		{"comma tips over", items(5, 5), 10, [][2]int{{0, 1}, {1, 2}}, false},
		{"several", items(3, 3, 3, 3, 3), 7, [][2]int{{0, 2}, {2, 4}, {4, 5}}, false},
		{"item at limit", items(10, 1), 10, [][2]int{{0, 1}, {1, 2}}, false},
		{"item over limit", items(1, 11), 10, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pack(tt.items, tt.limit)
			if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("pack = %v, %v; want %v (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}
