package local

import (
	"bytes"
	"context"
	"os"
	"path/filepath"

	"github.com/recollect-dev/recollect/pkg/memory"
	"testing"
)

// After a delete the record's bytes are still in the log (a tombstone
// follows them); Compact rewrites the files so they are in none, and
// the memories kept are read back after a reopen.
func TestCompactErasesDeletedBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir, WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	gone, kept := testMemory("acme", 1, []float32{1, 0}), testMemory("acme", 2, []float32{0, 1})
	gone.Content = "the secret word is Frobnicatrix"
	if err := s.Upsert(ctx, []memory.Memory{gone, kept}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "acme", gone.ID); err != nil {
		t.Fatal(err)
	}
	if !dirHolds(t, dir, "Frobnicatrix") {
		t.Fatal("the deleted content is not in the log before compaction: the test proves nothing")
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if dirHolds(t, dir, "Frobnicatrix") {
		t.Fatal("a file still holds the deleted content after Compact")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Get(ctx, "acme", kept.ID); err != nil || got.Content != kept.Content {
		t.Fatalf("kept memory after reopen = %q, %v", got.Content, err)
	}
}

func dirHolds(t *testing.T, dir, word string) bool {
	t.Helper()
	found := false
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found = found || bytes.Contains(data, []byte(word))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
