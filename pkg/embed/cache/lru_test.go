package cache

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func vec(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func has(t *testing.T, c *LRU, key string) bool {
	t.Helper()
	got, err := c.GetMulti(context.Background(), []string{key})
	if err != nil {
		t.Fatal(err)
	}
	_, ok := got[key]
	return ok
}

func TestLRUEntryBoundEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	c := NewLRU(3, 0)
	for _, k := range []string{"a", "b", "c"} {
		if err := c.SetMulti(ctx, map[string][]float32{k: vec(4, 1)}); err != nil {
			t.Fatal(err)
		}
	}
	has(t, c, "a") // a is now the most recently used; b the least
	if err := c.SetMulti(ctx, map[string][]float32{"d": vec(4, 1)}); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 3 {
		t.Fatalf("len = %d, want 3", c.Len())
	}
	for k, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if got := has(t, c, k); got != want {
			t.Errorf("has(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestLRUByteBound(t *testing.T) {
	ctx := context.Background()
	one := entryBytes("k000", vec(384, 0))
	c := NewLRU(0, 10*one)
	for i := range 25 {
		if err := c.SetMulti(ctx, map[string][]float32{fmt.Sprintf("k%03d", i): vec(384, float32(i))}); err != nil {
			t.Fatal(err)
		}
		if c.Bytes() > 10*one {
			t.Fatalf("after %d sets: %d bytes, bound %d", i+1, c.Bytes(), 10*one)
		}
	}
	if c.Len() != 10 || c.Bytes() != 10*one {
		t.Fatalf("len %d bytes %d, want 10 entries of %d bytes", c.Len(), c.Bytes(), one)
	}
	if has(t, c, "k014") || !has(t, c, "k015") || !has(t, c, "k024") {
		t.Fatal("did not keep the 10 most recent entries")
	}
}

func TestLRUOverwriteAndOversized(t *testing.T) {
	ctx := context.Background()
	c := NewLRU(0, entryBytes("k", vec(10, 0)))
	if err := c.SetMulti(ctx, map[string][]float32{"k": vec(10, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetMulti(ctx, map[string][]float32{"k": vec(10, 2)}); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 || c.Bytes() != entryBytes("k", vec(10, 0)) {
		t.Fatalf("after overwrite: len %d bytes %d", c.Len(), c.Bytes())
	}
	if err := c.SetMulti(ctx, map[string][]float32{"big": vec(1000, 1)}); err != nil {
		t.Fatal(err)
	}
	if has(t, c, "big") || !has(t, c, "k") {
		t.Fatal("an entry larger than the bound evicted the cache or was stored")
	}
}

func TestLRUCopies(t *testing.T) {
	ctx := context.Background()
	c := NewLRU(0, 0)
	in := vec(4, 1)
	if err := c.SetMulti(ctx, map[string][]float32{"k": in}); err != nil {
		t.Fatal(err)
	}
	in[0] = 99
	got, _ := c.GetMulti(ctx, []string{"k"})
	got["k"][1] = 99
	again, _ := c.GetMulti(ctx, []string{"k"})
	if !slices.Equal(again["k"], vec(4, 1)) {
		t.Fatalf("cached vector changed through a caller's slice: %v", again["k"])
	}
}

func TestLRUDefaultBound(t *testing.T) {
	if c := NewLRU(0, 0); c.maxBytes != DefaultMaxBytes || c.maxEntries != 0 {
		t.Fatalf("default bounds: %d bytes, %d entries", c.maxBytes, c.maxEntries)
	}
}
