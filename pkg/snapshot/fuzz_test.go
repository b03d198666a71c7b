package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

var fuzzNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// FuzzNDJSON reads an import stream: no panic; each bad line is a
// *LineError with its line number (and a field when the fault is one); each
// record the import would keep is written back as a line (as export does)
// and read again unchanged. Seeds: testdata/fuzz/FuzzNDJSON.
func FuzzNDJSON(f *testing.F) {
	f.Add([]byte(`{"id":"m1","content":"likes tea","type":"preference","layer":"working","importance":0.5,"confidence":0.6,"created_at":"2025-03-01T10:00:00Z"}` + "\n\n" + `{"id":"m2","content":"x","vector":[0.1,0.2]}` + "\r\n"))
	f.Add([]byte("{\"id\":\"../../x\"}\n[1]\n{\"id\":\"a\",\"id\":\"b\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), 4096)
		for {
			m, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var tl *TooLongError
			if errors.As(err, &tl) {
				return
			}
			if err != nil {
				var le *LineError
				if !errors.As(err, &le) || le.Line != rd.Line() || le.Line < 1 {
					t.Fatalf("error %v (%T) is not a LineError for line %d", err, err, rd.Line())
				}
				continue
			}
			line, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("encode record of line %d: %v", rd.Line(), err)
			}
			back, err := NewReader(bytes.NewReader(append(line, '\n')), 0).Next()
			if err != nil {
				t.Fatalf("our own line refused: %v\n%s", err, line)
			}
			// Compared encoded: an empty list and none are the same record.
			if again, _ := json.Marshal(back); !bytes.Equal(again, line) {
				t.Fatalf("record changed on export and import:\n got %s\nwant %s", again, line)
			}
			kept := m
			if err := Prepare(&kept, memory.DefaultTenant, rd.Line(), Rules{Now: fuzzNow}); err != nil {
				var le *LineError
				if !errors.As(err, &le) || le.Line != rd.Line() {
					t.Fatalf("Prepare error %v (%T) is not a LineError for line %d", err, err, rd.Line())
				}
				if strings.TrimSpace(le.Message) == "" {
					t.Fatalf("Prepare refused line %d without saying why", rd.Line())
				}
			}
		}
	})
}

// FuzzBernard reads Bernard's memories.json: no panic, and every entry of
// an accepted file becomes exactly one record with a deterministic id.
// Seeds: testdata/fuzz/FuzzBernard.
func FuzzBernard(f *testing.F) {
	f.Add([]byte(`[{"id":"1","fact":"User prefers vim","embedding":[0.1],"source":"compression","domain":"user-preferences","createdAt":"2025-01-02T03:04:05Z","accessCount":2,"lastAccessed":"2025-02-01T00:00:00Z"}]`))
	f.Add([]byte(`[{"id":"x","fact":""},{"id":"y","fact":"a","domain":""}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mems, err := Bernard(bytes.NewReader(data), BernardOptions{Now: fuzzNow})
		if err != nil {
			return
		}
		var entries []bernardMemory
		if err := json.Unmarshal(data, &entries); err != nil {
			t.Fatalf("accepted a file encoding/json cannot read: %v", err)
		}
		if len(mems) != len(entries) {
			t.Fatalf("%d entries became %d records", len(entries), len(mems))
		}
		again, err := Bernard(bytes.NewReader(data), BernardOptions{Now: fuzzNow})
		if err != nil {
			t.Fatalf("second read: %v", err)
		}
		for i := range mems {
			if mems[i].ID == "" || mems[i].ID != again[i].ID {
				t.Fatalf("entry %d: ids %q and %q, want one stable id", i, mems[i].ID, again[i].ID)
			}
		}
	})
}
