package jsonl

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auditlog/auditlogtest"
)

func TestAcceptance(t *testing.T) {
	auditlogtest.Run(t, func(t *testing.T) auditlog.Log {
		l, err := Open(filepath.Join(t.TempDir(), "audit"))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

var day = time.Date(2025, 6, 1, 23, 0, 0, 0, time.UTC)

func entry(reason string, at time.Time) auditlog.Entry {
	return auditlog.Entry{Time: at, Tenant: "acme", Epoch: "e", Seq: 1, Phase: "gate", Op: "promote", Applied: true,
		Decider: auditlog.DeciderRule, Reason: reason}
}

func reasons(t *testing.T, l *Log, q auditlog.Query) []string {
	t.Helper()
	q.Tenant = "acme"
	q.Limit = auditlog.MaxLimit
	got, err := l.Read(context.Background(), q)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	out := make([]string, len(got))
	for i, e := range got {
		out[i] = e.Reason
	}
	return out
}

func TestDayFiles(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// One batch across midnight goes to two files; the time zone of the
	// entry does not matter, its UTC day does.
	east := time.FixedZone("UTC+3", 3*3600)
	if err := l.Write(context.Background(), []auditlog.Entry{
		entry("late", day.Add(59*time.Minute).In(east)),
		entry("early", day.Add(61*time.Minute)),
	}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"audit-2025-06-01.jsonl": "late", "audit-2025-06-02.jsonl": "early"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"reason":"`+want+`"`) {
			t.Fatalf("%s holds %q, want the %s entry", name, data, want)
		}
	}
	// Files of other names in the directory are not read.
	if err := os.WriteFile(filepath.Join(dir, "audit-notes.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := reasons(t, l, auditlog.Query{}); fmt.Sprint(got) != "[early late]" {
		t.Fatalf("read %v", got)
	}
}

// TestTornLine: a crash mid-append leaves a last line without a newline.
// Reads skip it; the next append starts a line of its own, and the torn
// bytes stay in the file (an audit log is not rewritten).
func TestTornLine(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	l, err := Open(dir, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Write(ctx, []auditlog.Entry{entry("first", day)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName(day))
	const torn = `{"time":"2025-06-01T23:00:00Z","tenant":"acme","phase":"ga`
	appendBytes(t, path, torn)
	if got := reasons(t, l, auditlog.Query{}); fmt.Sprint(got) != "[first]" {
		t.Fatalf("with a torn last line read %v, want [first]", got)
	}
	if err := l.Write(ctx, []auditlog.Entry{entry("second", day)}); err != nil {
		t.Fatal(err)
	}
	if got := reasons(t, l, auditlog.Query{}); fmt.Sprint(got) != "[second first]" {
		t.Fatalf("after the next write read %v, want [second first]", got)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), torn+"\n") {
		t.Fatalf("the torn bytes were not kept on a line of their own:\n%s", data)
	}
	if !strings.Contains(logs.String(), "torn line") || !strings.Contains(logs.String(), "undecodable lines") {
		t.Fatalf("the torn line was not reported:\n%s", logs.String())
	}
}

func appendBytes(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentWriters: goroutines sharing a Log never interleave lines
// and lose nothing.
func TestConcurrentWriters(t *testing.T) {
	l, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const writers, batches, size = 8, 20, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches)
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				batch := make([]auditlog.Entry, size)
				for i := range batch {
					batch[i] = entry(fmt.Sprintf("w%d.b%d.%d.%s", w, b, i, strings.Repeat("x", 2000)), day.Add(time.Duration(i)*time.Second))
				}
				if err := l.Write(context.Background(), batch); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent write: %v", err)
	}
	got := reasons(t, l, auditlog.Query{})
	seen := map[string]bool{}
	for _, r := range got {
		seen[r] = true
	}
	if len(got) != writers*batches*size || len(seen) != len(got) {
		t.Fatalf("read %d entries (%d distinct), want %d", len(got), len(seen), writers*batches*size)
	}
}

// TestFailedWriteUndone: when a batch cannot be stored in every day file,
// the files it did reach are cut back, so a retry does not store it twice.
func TestFailedWriteUndone(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Write(ctx, []auditlog.Entry{entry("kept", day)}); err != nil {
		t.Fatal(err)
	}
	// The second day's file cannot be created: a directory has its name.
	next := day.Add(2 * time.Hour)
	if err := os.Mkdir(filepath.Join(dir, FileName(next)), 0o750); err != nil {
		t.Fatal(err)
	}
	err = l.Write(ctx, []auditlog.Entry{entry("lost", day), entry("next day", next)})
	if err == nil {
		t.Fatal("a write into a directory succeeded")
	}
	if got := reasons(t, l, auditlog.Query{}); fmt.Sprint(got) != "[kept]" {
		t.Fatalf("after a failed batch read %v, want [kept]", got)
	}
}
