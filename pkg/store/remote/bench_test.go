package remote

import (
	"context"
	"testing"

	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkSearch measures a k=10 search over 2,000 memories of 384 dims in
// the local engine, directly and through NATS (encode, round trip, decode).
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	sl := startLocal(b, startNATS(b), b.TempDir())
	if err := sl.client.Upsert(ctx, fullMemories("t1", 2000, 384)); err != nil {
		b.Fatal(err)
	}
	q := store.Query{Tenant: "t1", Vector: testVector(42, 384), K: 10, Filter: everything}
	for _, bc := range []struct {
		name string
		s    store.Store
	}{{"direct", sl.engine}, {"remote", sl.client}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hits, err := bc.s.Search(ctx, q)
				if err != nil || len(hits) != 10 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
		})
	}
}

// BenchmarkGet isolates the round trip: the store's own work is a map
// lookup.
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	sl := startLocal(b, startNATS(b), b.TempDir())
	m := fullMemory("t1", 1, 384)
	if err := sl.client.Upsert(ctx, fullMemories("t1", 2, 384)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sl.client.Get(ctx, "t1", m.ID); err != nil {
			b.Fatal(err)
		}
	}
}
