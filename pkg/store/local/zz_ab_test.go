package local

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Ad hoc A/B (not committed): mapped vs heap, same process, interleaved.
func TestZZAB(t *testing.T) {
	if os.Getenv("ZZAB") == "" {
		t.Skip()
	}
	n, _ := strconv.Atoi(os.Getenv("ZZAB"))
	const dim = 384
	ctx := context.Background()
	open := func(reserve int64) (*Store, string) {
		d := t.TempDir()
		return openT(t, d, withVecReserve(reserve)), d
	}
	fill := func(s *Store) {
		for start := 0; start < n; start += 512 {
			var b []memory.Memory
			for i := start; i < min(n, start+512); i++ {
				b = append(b, testMemory("ab", i, seededVector(uint64(i)+7, dim)))
			}
			if err := s.Upsert(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		for s.Stats().IndexTraining > 0 || s.Stats().Indexed == 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	a, da := open(defaultVecReserve)
	b, db := open(1 << 62)
	fill(a)
	fill(b)
	closeT(t, a)
	closeT(t, b)
	var ra, rb []time.Duration
	for round := range 10 {
		if round%2 == 1 {
			t0 := time.Now()
			b, _ = open2(t, db, 1<<62)
			rb = append(rb, time.Since(t0))
		}
		t0 := time.Now()
		a, _ = open2(t, da, defaultVecReserve)
		ra = append(ra, time.Since(t0))
		if round%2 == 0 {
			t0 = time.Now()
			b, _ = open2(t, db, 1<<62)
			rb = append(rb, time.Since(t0))
		}
		if round < 9 {
			closeT(t, a)
			closeT(t, b)
		}
	}
	ma, mb := slices.Clone(ra), slices.Clone(rb)
	slices.Sort(ma)
	slices.Sort(mb)
	t.Logf("reopen medians mapped %v heap %v", ma[len(ma)/2], mb[len(mb)/2])
	t.Logf("reopen mapped %v heap %v; mapped bytes %d / %d", ra, rb, a.Stats().MappedVectorBytes, b.Stats().MappedVectorBytes)
	var ea, eb, sa, sb, fa, fb []time.Duration
	for q := range 300 {
		v := seededVector(uint64(q)+1_000_000, dim)
		for _, x := range []struct {
			s  *Store
			e  *[]time.Duration
			ap *[]time.Duration
		}{{a, &ea, &sa}, {b, &eb, &sb}} {
			t0 := time.Now()
			if _, err := x.s.Search(ctx, store.Query{Tenant: "ab", Vector: v, K: 10}); err != nil {
				t.Fatal(err)
			}
			*x.ap = append(*x.ap, time.Since(t0))
			if q%3 == 0 {
				t0 = time.Now()
				if _, err := x.s.SearchExact(ctx, store.Query{Tenant: "ab", Vector: v, K: 10}); err != nil {
					t.Fatal(err)
				}
				*x.e = append(*x.e, time.Since(t0))
			}
		}
		if q == 0 {
			fa, fb = slices.Clone(ea), slices.Clone(eb)
		}
	}
	med := func(d []time.Duration) (time.Duration, time.Duration) {
		slices.Sort(d)
		return d[len(d)/2], d[len(d)*99/100]
	}
	am, ap := med(sa)
	bm, bp := med(sb)
	t.Logf("search (ivf) mapped p50 %v p99 %v | heap p50 %v p99 %v", am, ap, bm, bp)
	am, ap = med(ea)
	bm, bp = med(eb)
	t.Logf("exact mapped p50 %v p99 %v | heap p50 %v p99 %v; first exact after reopen mapped %v heap %v", am, ap, bm, bp, fa, fb)
	closeT(t, a)
	closeT(t, b)
}

func open2(t *testing.T, d string, reserve int64) (*Store, string) {
	return openT(t, d, withVecReserve(reserve)), d
}
