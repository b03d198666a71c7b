package locktest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// Bench measures one Acquire plus one Release: on a single key, and from
// parallel goroutines on a key each.
func Bench(b *testing.B, l lock.Locker) {
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		k := "locktest/bench/" + b.Name()
		b.ReportAllocs()
		for b.Loop() {
			if err := acquireRelease(ctx, l, k); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		var next atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			k := fmt.Sprintf("locktest/bench/%s/%d", b.Name(), next.Add(1))
			for pb.Next() {
				if err := acquireRelease(ctx, l, k); err != nil {
					b.Error(err) // not Fatal: this is not the benchmark's goroutine
					return
				}
			}
		})
	})
}

func acquireRelease(ctx context.Context, l lock.Locker, k string) error {
	le, err := l.Acquire(ctx, k, longTTL)
	if err != nil {
		return fmt.Errorf("acquire %q: %w", k, err)
	}
	if err := le.Release(ctx); err != nil {
		return fmt.Errorf("release %q: %w", k, err)
	}
	return nil
}
