package local

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func withCompactHook(f func(step string)) Option {
	return func(o *options) { o.compactHook = f }
}

// TestCompactionCrashPoints copies the store directory at every step of a
// compaction (what a crash at that moment would leave on disk) and checks
// that each copy opens to exactly the acknowledged state.
func TestCompactionCrashPoints(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var steps []string
	copies := map[string]string{}
	hook := func(step string) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, step)
		dst := filepath.Join(t.TempDir(), step)
		copyDir(t, dir, dst)
		copies[step] = dst
	}
	cfg := Config{CompactMinBytes: 8 << 10, CompactRatio: 1.5}
	s := openT(t, dir, WithConfig(cfg), withCompactHook(hook))

	// Rewrite the same 20 ids until the log outgrows the live data, delete
	// a few: the snapshot must hold the last versions and no deleted ids.
	live := map[string]memory.Memory{}
	for round := 0; ; round++ {
		var batch []memory.Memory
		for i := range 20 {
			m := testMemory("a", i, seededVector(uint64(round*100+i), 16))
			m.Content = m.Content + " version " + string(rune('a'+round%26))
			batch = append(batch, m)
		}
		if err := s.Upsert(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		for _, m := range batch {
			live[m.ID] = m
		}
		// No write may land while a compaction copies the directory, or the
		// copies would miss it.
		s.compactWG.Wait()
		mu.Lock()
		started := len(steps) > 0
		mu.Unlock()
		if started {
			break
		}
		if round > 500 {
			t.Fatal("no compaction started")
		}
	}
	gone := []string{testMemory("a", 3, nil).ID, testMemory("a", 7, nil).ID}
	if err := s.Delete(t.Context(), "a", gone...); err != nil {
		t.Fatal(err)
	}
	closeT(t, s)

	mu.Lock()
	defer mu.Unlock()
	if want := []string{"rotated", "snapshot-written", "snapshot-renamed", "cleaned"}; !slices.Equal(steps, want) {
		t.Fatalf("compaction steps %v, want %v", steps, want)
	}
	var before []memory.Memory
	for _, m := range live {
		before = append(before, m)
	}
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			s := openT(t, copies[step])
			defer closeT(t, s)
			checkAll(t, s, "crash at "+step, before)
		})
	}
	t.Run("after", func(t *testing.T) {
		df, err := listDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(df.snaps) != 1 || len(df.wals) != 1 || len(df.tmps) != 0 || df.wals[0] != df.snaps[0] {
			t.Fatalf("after compaction the dir holds snapshots %v, logs %v, temporaries %v; want one of each with the same number, no temporaries",
				df.snaps, df.wals, df.tmps)
		}
		s := openT(t, dir)
		defer closeT(t, s)
		var after []memory.Memory
		for id, m := range live {
			if !slices.Contains(gone, id) {
				after = append(after, m)
			}
		}
		checkAll(t, s, "after compaction and deletes", after)
	})
}

// TestCompactionKeepsLogSmall checks that steady overwrites do not grow the
// directory without bound.
func TestCompactionKeepsLogSmall(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{CompactMinBytes: 16 << 10, CompactRatio: 2}
	s := openT(t, dir, WithConfig(cfg))
	var last []memory.Memory
	for round := range 300 {
		last = last[:0]
		for i := range 10 {
			last = append(last, testMemory("a", i, seededVector(uint64(round*10+i), 32)))
		}
		if err := s.Upsert(t.Context(), last); err != nil {
			t.Fatal(err)
		}
	}
	closeT(t, s)
	total := dirSize(t, dir)
	// 300 rounds write about 300 times the live data; what remains is a
	// snapshot plus a log bounded by the thresholds.
	if limit := 4*cfg.CompactMinBytes + 64<<10; total > limit {
		t.Fatalf("store dir holds %d bytes after steady overwrites, want at most %d", total, limit)
	}
	s = openT(t, dir)
	defer closeT(t, s)
	checkAll(t, s, "after many compactions", last)
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += info.Size()
	}
	return n
}
