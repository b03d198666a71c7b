package jsonl

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

func TestAcceptance(t *testing.T) {
	usagetest.Run(t, func(t *testing.T) (usage.Writer, usage.Reader) {
		l := open(t, t.TempDir())
		return l, l
	})
}

func open(t *testing.T, dir string) *Log {
	t.Helper()
	l, err := Open(dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return l
}

func record(tokens int64) usage.Record {
	return usage.Record{
		Time: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), Tenant: "acme", Component: "query",
		Model: "m", InputTokens: tokens, Outcome: usage.OutcomeOK,
	}
}

func wantCalls(t *testing.T, l *Log, calls, tokens int64) {
	t.Helper()
	got, err := l.Totals(context.Background(), usage.Query{})
	if err != nil {
		t.Fatalf("totals: %v", err)
	}
	if calls == 0 && len(got) == 0 {
		return
	}
	if len(got) != 1 || got[0].Calls != calls || got[0].InputTokens != tokens {
		t.Fatalf("totals = %+v, want one with %d calls and %d tokens", got, calls, tokens)
	}
}

func TestOneJSONObjectPerLine(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	want := record(3)
	want.Duration = 1500 * time.Microsecond
	want.TraceID = "abc"
	if err := l.Write(context.Background(), []usage.Record{want, record(4)}); err != nil {
		t.Fatalf("write: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatalf("read file: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(string(b), "\n") {
		t.Fatalf("file holds %q, want two newline-terminated lines", b)
	}
	for _, field := range []string{`"time":"2025-06-01T12:00:00Z"`, `"tenant":"acme"`, `"input_tokens":3`, `"duration_ns":1500000`, `"trace_id":"abc"`} {
		if !strings.Contains(lines[0], field) {
			t.Errorf("line %s lacks %s", lines[0], field)
		}
	}
}

func TestReopenAppends(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if err := first.Write(context.Background(), []usage.Record{record(1)}); err != nil {
		t.Fatalf("write: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := first.Write(context.Background(), []usage.Record{record(1)}); err != ErrClosed {
		t.Fatalf("write after close = %v, want ErrClosed", err)
	}
	second := open(t, dir)
	if err := second.Write(context.Background(), []usage.Record{record(2)}); err != nil {
		t.Fatalf("write after reopen: %v", err)
	}
	wantCalls(t, second, 2, 3)
}

// TestTornTail: a crash mid-append leaves a line without newline; reading
// skips it, and Open cuts it so the next append is not glued to it.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	if err := l.Write(context.Background(), []usage.Record{record(1), record(2)}); err != nil {
		t.Fatalf("write: %v", err)
	}
	path := filepath.Join(dir, FileName)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	torn := `{"time":"2025-06-01T12:00:00Z","tenant":"acme","component":"query","model":"m","input_tokens":100`
	appendRaw(t, path, torn)
	wantCalls(t, l, 2, 3) // the fragment is not a record

	reopened := open(t, dir)
	if b, _ := os.ReadFile(path); string(b) != string(whole) {
		t.Fatalf("after reopen file is %q, want the torn line cut: %q", b, whole)
	}
	if err := reopened.Write(context.Background(), []usage.Record{record(4)}); err != nil {
		t.Fatalf("write after repair: %v", err)
	}
	wantCalls(t, reopened, 3, 7)
}

func TestUndecodableLinesSkipped(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir)
	if err := l.Write(context.Background(), []usage.Record{record(1)}); err != nil {
		t.Fatalf("write: %v", err)
	}
	appendRaw(t, filepath.Join(dir, FileName), "not json\n{\"input_tokens\":\"many\"}\n")
	if err := l.Write(context.Background(), []usage.Record{record(2)}); err != nil {
		t.Fatalf("write: %v", err)
	}
	wantCalls(t, l, 2, 3)
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(file, "sub")); err == nil {
		t.Fatalf("open under a regular file succeeded")
	}
}

func BenchmarkTotals(b *testing.B) {
	l, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	batch := make([]usage.Record, 1000)
	for i := range batch {
		batch[i] = record(int64(i))
	}
	for range 100 {
		if err := l.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.Totals(context.Background(), usage.Query{Tenant: "acme"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/record")
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatalf("append to %s: %v", path, err)
	}
}
