package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect-dev/recollect/internal/tmpfs"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestFullDiskRefusesThenRecovers fills a small tmpfs under the store:
// a write is refused as unavailable (retryable), the log keeps no partial
// frame, and once space returns writes succeed again without a reopen; a
// reopen then holds every acknowledged memory once.
func TestFullDiskRefusesThenRecovers(t *testing.T) {
	dir := tmpfs.Mount(t, "4m")
	ctx := context.Background()
	sdir := filepath.Join(dir, "store")
	s := openT(t, sdir)
	mem := func(n int) memory.Memory { return testMemory("acme", n, seededVector(uint64(n), 256)) }
	for n := range 10 {
		if err := s.Upsert(ctx, []memory.Memory{mem(n)}); err != nil {
			t.Fatalf("upsert %d before the disk filled: %v", n, err)
		}
	}
	filler := filepath.Join(dir, "filler")
	tmpfs.Fill(t, filler)

	var refused []int
	for n := 10; n < 20; n++ {
		err := s.Upsert(ctx, []memory.Memory{mem(n)})
		switch {
		case err == nil: // it fitted in the log's last page
		case errors.Is(err, store.ErrUnavailable):
			refused = append(refused, n)
		default:
			t.Fatalf("upsert %d on a full disk: %v, want store.ErrUnavailable", n, err)
		}
	}
	if len(refused) == 0 {
		t.Fatal("no write refused on a full disk")
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for _, n := range refused { // resent
		if err := s.Upsert(ctx, []memory.Memory{mem(n)}); err != nil {
			t.Fatalf("upsert %d after space returned: %v", n, err)
		}
	}
	if err := s.Delete(ctx, "acme", mem(0).ID); err != nil {
		t.Fatalf("delete after space returned: %v", err)
	}
	closeT(t, s)

	s = openT(t, sdir)
	defer closeT(t, s)
	n, err := s.Count(ctx, "acme", store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 19 {
		t.Errorf("reopened store holds %d memories, want 19", n)
	}
	for i := 1; i < 20; i++ {
		if _, err := s.Get(ctx, "acme", mem(i).ID); err != nil {
			t.Errorf("memory %d after reopen: %v", i, err)
		}
	}
	t.Logf("%d of 10 writes refused on the full disk", len(refused))
}
