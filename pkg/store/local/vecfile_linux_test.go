package local

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestKill9Mapped kills the crash test's writer once its tenant has
// outgrown a chunk, so that it dies with mapped vectors: the reopened
// store removes the dead process's file and holds every acknowledged
// memory with its vector.
func TestKill9Mapped(t *testing.T) {
	skipUnlessMapped(t)
	dir := t.TempDir()
	acks := runAndKill(t, dir, 0, 4*chunkRows)
	stale := vecFileNames(t, dir)
	if len(stale) == 0 {
		t.Fatalf("no vector file after %d acknowledgements: the writer never mapped its vectors", len(acks))
	}
	// A second link to each stale file tells whether Open removed it (the
	// new files may take the same names).
	keep := t.TempDir()
	for _, name := range stale {
		if err := os.Link(filepath.Join(dir, VectorCacheDir, name), filepath.Join(keep, name)); err != nil {
			t.Fatal(err)
		}
	}
	put, tried := map[string]bool{}, map[string]bool{}
	for _, a := range acks {
		kind, id, _ := strings.Cut(a, " ")
		switch kind {
		case "put":
			put[id] = true
		case "try":
			tried[id] = true
		}
	}
	s, err := Open(dir, WithConfig(childConfig()), WithLogger(discardLogger()))
	if err != nil {
		t.Fatalf("open after kill -9: %v", err)
	}
	defer closeT(t, s)
	for _, name := range stale {
		fi, err := os.Stat(filepath.Join(keep, name))
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink != 1 {
			t.Errorf("the killed writer's vector file %s is still in the store (%d links)", name, st.Nlink)
		}
	}
	for id := range put {
		m, err := s.Get(t.Context(), childTenant, id)
		switch {
		case err != nil && !tried[id]:
			t.Errorf("acknowledged upsert of %s lost: %v", id, err)
		case err == nil && len(m.Vector) != childDim:
			t.Errorf("%s has a %d-dim vector, want %d", id, len(m.Vector), childDim)
		}
	}
	if st := s.Stats(); st.MappedVectorBytes == 0 {
		t.Errorf("reopened store maps nothing (%d memories)", st.Memories)
	}
	t.Logf("%d acknowledgements, %d upserts; stale files %v", len(acks), len(put), stale)
}
