package local

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkSessions lists the sessions of a tenant of 100,000 memories in
// sessions of 50 (2,000 sessions), as recall does for a question naming a
// session by its place ("in our fourth session"): once after a write (a
// pass over the columns) and again with nothing written since.
func BenchmarkSessions(b *testing.B) {
	const n, perSession = 100_000, 50
	s, err := Open(b.TempDir(), WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	mems := make([]memory.Memory, 0, 1000)
	for i := 0; i < n; i += cap(mems) {
		mems = mems[:0]
		for j := i; j < i+cap(mems); j++ {
			m := testMemory("bench", j, nil)
			m.Session, m.ValidFrom = fmt.Sprintf("session-%04d", j/perSession), base.Add(time.Duration(j)*time.Minute)
			mems = append(mems, m)
		}
		if err := s.Upsert(b.Context(), mems); err != nil {
			b.Fatal(err)
		}
	}
	f := store.Filter{Namespaces: []string{memory.DefaultNamespace}}
	list := func(b *testing.B) {
		spans, err := s.Sessions(b.Context(), "bench", f)
		if err != nil || len(spans) != n/perSession {
			b.Fatalf("%d sessions, %v", len(spans), err)
		}
	}
	b.Run("after-a-write", func(b *testing.B) { // the pass over the columns
		for b.Loop() {
			s.partition("bench").sessions.Store(nil)
			list(b)
		}
	})
	b.Run("again", func(b *testing.B) { // the list kept since the last write
		for b.Loop() {
			list(b)
		}
	})
}
