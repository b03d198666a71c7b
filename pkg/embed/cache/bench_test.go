package cache

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkEmbedHits serves a batch of 32 cached 384-dimension vectors from
// the in-process LRU.
func BenchmarkEmbedHits(b *testing.B) {
	ctx := context.Background()
	m := newHashModel("m")
	m.dim = 384
	c := New(m, NewLRU(0, 0))
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = "a memory about topic number " + strconv.Itoa(i)
	}
	if _, err := c.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	if c.Misses() != 32 {
		b.Fatalf("misses %d, want only the first batch", c.Misses())
	}
}
