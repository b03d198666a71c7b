package local

import (
	"testing"

	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

func TestAcceptance(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		opts []Option
	}{
		{"default", DefaultConfig(), nil},
		// Compacting after nearly every write runs the suite across many
		// snapshot and log switches.
		{"compacting", Config{CompactMinBytes: 1, CompactRatio: 0.01}, nil},
		// Every tenant indexed from its first vector (retrained as it
		// grows), and searches probe the index whenever it is ready.
		{"indexed", Config{CompactMinBytes: 64 << 20, CompactRatio: 2, ApproxMinRows: 1, IndexMinRows: 1},
			[]Option{func(o *options) { o.ivfAlways = true }}},
		{"indexed-compacting", Config{CompactMinBytes: 1, CompactRatio: 0.01, ApproxMinRows: 1, IndexMinRows: 1},
			[]Option{func(o *options) { o.ivfAlways = true }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := func(t *testing.T, dir string) store.Store {
				s, err := Open(dir, append([]Option{WithConfig(tc.cfg), WithLogger(discardLogger())}, tc.opts...)...)
				if err != nil {
					t.Fatalf("open %s: %v", dir, err)
				}
				return s
			}
			storetest.Run(t, storetest.Harness{
				KnowsTerms: true,
				Open:       func(t *testing.T) store.Store { return open(t, t.TempDir()) },
				Reopen: func(t *testing.T, s store.Store) store.Store {
					dir := s.(*Store).dir
					if err := s.Close(); err != nil {
						t.Fatalf("close before reopening: %v", err)
					}
					return open(t, dir)
				},
			})
		})
	}
}
