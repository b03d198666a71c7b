package usage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/usagetest"
)

func newSpooled(t *testing.T, w usage.Writer, dir string, opts ...usage.Option) *usage.Buffered {
	t.Helper()
	b, err := usage.NewSpooled(w, dir, opts...)
	if err != nil {
		t.Fatalf("open spooled buffer: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// spoolFiles lists the segment files in dir with their sizes.
func spoolFiles(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "spool-") {
			continue // the lock file
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.Size()
	}
	return out
}

// TestSpoolSurvivesAbandonedBuffer: a process killed with records queued
// (the backend down, the buffer never closed) loses none of them: the next
// start replays the spool and the backend gets each record once.
func TestSpoolSurvivesAbandonedBuffer(t *testing.T) {
	dir := t.TempDir()
	down := usagetest.NewMemory()
	down.Fail(errDown)
	first := newSpooled(t, down, dir, fast(usage.WithBatchSize(10))...)
	recordN(first, 0, 25)
	waitFor(t, "the first buffer retries", func() bool { return first.FailedWrites() >= 2 })
	first.Abandon() // as kill -9: no final write, the spool left as it is

	m := usagetest.NewMemory()
	second := newSpooled(t, m, dir, fast(usage.WithBatchSize(10))...)
	if second.Replayed() != 25 {
		t.Fatalf("replayed %d, want 25", second.Replayed())
	}
	recordN(second, 25, 5)
	waitFor(t, "replayed and new records written", func() bool { return second.Written() == 30 })
	wantStored(t, m, 30)
	ids := map[string]bool{}
	for _, r := range m.Records() {
		if r.ID == "" || ids[r.ID] {
			t.Fatalf("record #%d has id %q: empty or repeated", r.InputTokens, r.ID)
		}
		ids[r.ID] = true
	}
	if second.Dropped() != 0 {
		t.Fatalf("dropped %d, want 0", second.Dropped())
	}
}

// TestSpoolCloseKeepsWhatItCannotWrite: Close with the backend down keeps
// the records for the next start instead of dropping them.
func TestSpoolCloseKeepsWhatItCannotWrite(t *testing.T) {
	dir := t.TempDir()
	down := usagetest.NewMemory()
	down.Fail(errDown)
	b, err := usage.NewSpooled(down, dir, fast(usage.WithCloseTimeout(100*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	recordN(b, 0, 7)
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if b.Dropped() != 0 {
		t.Fatalf("dropped %d at close with a spool, want 0", b.Dropped())
	}
	m := usagetest.NewMemory()
	next := newSpooled(t, m, dir, fast()...)
	waitFor(t, "kept records written", func() bool { return next.Written() == 7 })
	wantStored(t, m, 7)
}

// TestSpoolTornLineCountedAsDropped: a line cut by a kill mid-append is
// not a record; the next start counts it as dropped and replays the rest.
func TestSpoolTornLineCountedAsDropped(t *testing.T) {
	dir := t.TempDir()
	down := usagetest.NewMemory()
	down.Fail(errDown)
	first, err := usage.NewSpooled(down, dir, fast(usage.WithCloseTimeout(100*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	recordN(first, 0, 3)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	var seg string
	for name, size := range spoolFiles(t, dir) {
		if size > 0 {
			seg = filepath.Join(dir, name)
		}
	}
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatalf("open the segment %q: %v", seg, err)
	}
	if _, err := f.WriteString(`{"id":"abc","tenant":"ac`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	m := usagetest.NewMemory()
	next := newSpooled(t, m, dir, fast()...)
	if next.Replayed() != 3 || next.Dropped() != 1 {
		t.Fatalf("replayed %d dropped %d, want 3 1", next.Replayed(), next.Dropped())
	}
	waitFor(t, "replayed records written", func() bool { return next.Written() == 3 })
	wantStored(t, m, 3)
}

// TestSpoolShrinksAsRecordsAreWritten: written segments are removed and
// the active one emptied, so a healthy backend leaves an empty spool.
func TestSpoolShrinksAsRecordsAreWritten(t *testing.T) {
	dir := t.TempDir()
	m := usagetest.NewMemory()
	release := m.Hold()
	b := newSpooled(t, m, dir, fast(usage.WithBatchSize(10))...)
	recordN(b, 0, 45) // the held write keeps them queued: five segments of 10
	waitFor(t, "a write in flight", func() bool { return m.InFlight() == 1 })
	if n := len(spoolFiles(t, dir)); n != 5 {
		t.Fatalf("%d segment files while held, want 5: %v", n, spoolFiles(t, dir))
	}
	release()
	waitFor(t, "records written", func() bool { return b.Written() == 45 })
	wantStored(t, m, 45)
	files := spoolFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("spool after every record was written: %v, want one empty segment", files)
	}
	for name, size := range files {
		if size != 0 || !strings.HasPrefix(name, "spool-") {
			t.Fatalf("spool after every record was written: %v, want one empty segment", files)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if files := spoolFiles(t, dir); len(files) != 0 {
		t.Fatalf("spool after Close of an empty queue: %v, want no files", files)
	}
	next := newSpooled(t, usagetest.NewMemory(), dir)
	if next.Replayed() != 0 {
		t.Fatalf("replayed %d after a clean run, want 0", next.Replayed())
	}
}

// TestSpoolDirOfALiveProcessIsLeftAlone: two processes sharing a data dir
// get a spool each; neither replays nor removes the other's records.
func TestSpoolDirOfALiveProcessIsLeftAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "usage-spool")
	down := usagetest.NewMemory()
	down.Fail(errDown)
	live := newSpooled(t, down, dir, fast()...)
	recordN(live, 0, 5)
	m := usagetest.NewMemory()
	other := newSpooled(t, m, dir, fast()...)
	if other.Replayed() != 0 {
		t.Fatalf("the second process replayed %d records of the live one", other.Replayed())
	}
	recordN(other, 0, 3)
	waitFor(t, "the second process's records written", func() bool { return other.Written() == 3 })
	if _, err := os.Stat(dir + "-2"); err != nil {
		t.Fatalf("the second process's spool: %v", err)
	}
	if live.Pending() != 5 {
		t.Fatalf("the live process has %d pending, want 5", live.Pending())
	}
}

// TestSpoolRecordsHaveIDs: Buffered names every record and keeps a name
// it was given.
func TestSpoolRecordsHaveIDs(t *testing.T) {
	m := usagetest.NewMemory()
	b := newSpooled(t, m, t.TempDir(), fast()...)
	r := record(0)
	r.ID = "given"
	b.Record(context.Background(), r)
	b.Record(context.Background(), record(1))
	waitFor(t, "written", func() bool { return b.Written() == 2 })
	got := m.Records()
	if got[0].ID != "given" || len(got[1].ID) != 32 {
		t.Fatalf("ids %q %q, want \"given\" and 32 hex digits", got[0].ID, got[1].ID)
	}
}
