package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
)

// TestImportSpoolsWhileReading streams a body larger than the import's
// memory bound through a pipe: while the body is still arriving, its
// validated lines are already in a spool file (a server holding the whole
// body would have none) and nothing is written; once it ends, every record
// is written and the file is gone. A bad last line after the spill stores
// nothing.
func TestImportSpoolsWhileReading(t *testing.T) {
	const memBytes = 4 << 10
	for _, tc := range []struct {
		name    string
		badLast bool
	}{{"good body", false}, {"bad last line", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var released atomic.Int32
			h := newImportHarness(t, func(q *Query) {
				q.SetImportSpool(dir, memBytes)
				q.SetImportRelease(time.Millisecond, func() { released.Add(1) })
			})
			const n = 40
			var lines [][]byte
			for i := range n {
				m := fixture(fmt.Sprintf("m-%02d", i), "acme")
				if tc.badLast && i == n-1 {
					m.Importance = 2
				}
				lines = append(lines, ndjson(t, m))
			}
			pr, pw := io.Pipe()
			// On failure, end the body so the request (and the server) can stop.
			t.Cleanup(func() { pw.CloseWithError(errors.New("test ended")) })
			type answer struct {
				code int
				resp ImportResponse
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				resp, err := http.Post(h.url+"/v1/import?tenant=acme", snapshot.ContentType, pr)
				if err != nil {
					done <- answer{err: err}
					return
				}
				defer resp.Body.Close()
				var out ImportResponse
				err = json.NewDecoder(resp.Body).Decode(&out)
				done <- answer{code: resp.StatusCode, resp: out, err: err}
			}()
			sent := 0
			for sent < n/2 {
				if _, err := pw.Write(lines[sent]); err != nil {
					t.Fatal(err)
				}
				sent++
			}
			if size := len(lines[0]) * sent; size <= 2*memBytes {
				t.Fatalf("test body: %d bytes sent before the check, want well over the %d-byte bound", size, memBytes)
			}
			// The server has read the first half while the body is open.
			deadline := time.Now().Add(60 * time.Second)
			for spooled(t, dir) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("no spool file in %s after %d lines (%d bytes) of an open body: the body is held in memory", dir, sent, len(lines[0])*sent)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got := h.count(t, "acme"); got != 0 {
				t.Fatalf("%d memories written before the body ended, want none (validation is all or nothing)", got)
			}
			for ; sent < n; sent++ {
				if _, err := pw.Write(lines[sent]); err != nil {
					t.Fatal(err)
				}
			}
			pw.Close()
			a := <-done
			if a.err != nil {
				t.Fatal(a.err)
			}
			if tc.badLast {
				if a.code != http.StatusBadRequest || len(a.resp.Errors) != 1 || a.resp.Errors[0].Line != n || a.resp.Errors[0].Field != "importance" {
					t.Fatalf("import answered %d %+v, want 400 naming line %d's importance", a.code, a.resp, n)
				}
				if got := h.count(t, "acme"); got != 0 {
					t.Fatalf("%d memories written by a rejected import, want none", got)
				}
			} else {
				if a.code != http.StatusOK || a.resp.Imported != n {
					t.Fatalf("import answered %d %+v, want %d imported", a.code, a.resp, n)
				}
				if got := h.count(t, "acme"); got != n {
					t.Fatalf("%d memories stored, want %d", got, n)
				}
				// A large import returns what it freed to the OS.
				for released.Load() == 0 {
					if time.Now().After(deadline) {
						t.Fatal("the memory of a large import was never released")
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			if left := spooled(t, dir); left != 0 {
				t.Fatalf("%d spool files left in %s after the request", left, dir)
			}
		})
	}
}

// spooled counts the files in dir.
func spooled(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// count is how many memories the tenant has, archived ones included.
func (h *harness) count(t *testing.T, tenant string) int {
	t.Helper()
	n := 0
	err := h.store.Scroll(context.Background(), tenant, everything, func(memory.Memory) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Spool files left by a process that died mid-import are removed at start;
// a fresh one (a live import's, in a shared data dir) is kept.
func TestRemoveStaleImportSpools(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := filepath.Join(dir, "recollect-import-1.ndjson")
	fresh := filepath.Join(dir, "recollect-import-2.ndjson")
	other := filepath.Join(dir, "notes.txt")
	for _, p := range []string{old, fresh, other} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{old, other} {
		if err := os.Chtimes(p, now.Add(-2*time.Hour), now.Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := RemoveStaleImportSpools(dir, now.Add(-time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want 1, nil", n, err)
	}
	for p, want := range map[string]bool{old: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
