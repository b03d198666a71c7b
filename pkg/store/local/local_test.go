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
	}{
		{"default", DefaultConfig()},
		// Compacting after nearly every write runs the suite across many
		// snapshot and log switches.
		{"compacting", Config{CompactMinBytes: 1, CompactRatio: 0.01}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := func(t *testing.T, dir string) store.Store {
				s, err := Open(dir, WithConfig(tc.cfg), WithLogger(discardLogger()))
				if err != nil {
					t.Fatalf("open %s: %v", dir, err)
				}
				return s
			}
			storetest.Run(t, storetest.Harness{
				Open: func(t *testing.T) store.Store { return open(t, t.TempDir()) },
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
