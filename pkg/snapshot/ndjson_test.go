package snapshot

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func record(id, content string) string {
	data, _ := json.Marshal(memory.Memory{ID: id, Tenant: "other", Namespace: "default", Content: content, Domain: "general",
		Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking})
	return string(data)
}

// readAll returns the ids read, the line numbers of bad lines, and the
// error that stopped the reader (nil at EOF).
func readAll(in string, limit int) ([]string, []int, error) {
	rd := NewReader(strings.NewReader(in), limit)
	var ids []string
	var bad []int
	for {
		m, err := rd.Next()
		var le *LineError
		switch {
		case errors.Is(err, io.EOF):
			return ids, bad, nil
		case errors.As(err, &le):
			if le.Line != rd.Line() {
				return ids, bad, errors.New("line error number differs from the reader's line")
			}
			bad = append(bad, le.Line)
		case err != nil:
			return ids, bad, err
		default:
			ids = append(ids, m.ID)
		}
	}
}

func TestReader(t *testing.T) {
	a, b := record("a", "alpha"), record("b", "beta")
	tests := []struct {
		name    string
		in      string
		limit   int
		ids     []string
		bad     []int
		tooLong int // line of the *TooLongError, 0 for none
	}{
		{"two lines", a + "\n" + b + "\n", 0, []string{"a", "b"}, nil, 0},
		{"no final newline", a + "\n" + b, 0, []string{"a", "b"}, nil, 0},
		{"blank and CRLF lines count", "\n" + a + "\r\n\n" + b + "\r\n", 0, []string{"a", "b"}, nil, 0},
		{"empty", "", 0, nil, nil, 0},
		{"bad lines are reported and skipped", a + "\nnot json\n{\"id\":\"c\",\"nope\":1}\n" + a + " {}\n" + b, 0, []string{"a", "b"}, []int{2, 3, 4}, 0},
		{"a line of exactly the limit fits", a + "\n", len(a), []string{"a"}, nil, 0},
		// a is one byte longer than b: with b's length as the limit, line 1 fits and line 2 does not.
		{"a line over the limit stops the stream", b + "\n" + a + "\n" + b, len(b), []string{"b"}, nil, 2},
		{"a last line over the limit", b + "\n" + a, len(b), []string{"b"}, nil, 2},
		{"a line far over the limit", b + "\n" + record("c", strings.Repeat("x", 5000)) + "\n" + b, len(b), []string{"b"}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(a) != len(b)+1 {
				t.Fatal("fixture: a must be one byte longer than b")
			}
			ids, bad, err := readAll(tt.in, tt.limit)
			var tl *TooLongError
			if tt.tooLong > 0 {
				if !errors.As(err, &tl) || tl.Line != tt.tooLong || tl.Limit != tt.limit {
					t.Fatalf("error %v, want line %d over %d bytes", err, tt.tooLong, tt.limit)
				}
				if !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "bytes") {
					t.Errorf("message %q does not name the line and the limit", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if strings.Join(ids, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("ids %v, want %v", ids, tt.ids)
			}
			if jsonOf(bad) != jsonOf(tt.bad) {
				t.Errorf("bad lines %v, want %v", bad, tt.bad)
			}
		})
	}
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func TestCheck(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in := strings.Join([]string{
		record("a", "alpha"),
		record("b", ""),
		record("a", "alpha again"),
		`{"id":"c","namespace":"default","content":"x","domain":"general","type":"opinion","kind":"semantic","layer":"working"}`,
		record("d", "delta"),
	}, "\n")
	n, bad, err := Check(strings.NewReader(in), 0, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []LineError{
		{Line: 2, Field: "content", Message: "is required"},
		{Line: 3, Field: "id", Message: "repeats the id of line 1"},
		{Line: 4, Field: "type", Message: `is not a known memory type (got "opinion")`},
	}
	if n != 2 || jsonOf(bad) != jsonOf(want) {
		t.Fatalf("got %d records, bad %s; want 2, %s", n, jsonOf(bad), jsonOf(want))
	}
	if _, bad, _ := Check(strings.NewReader(in), 1, now); len(bad) != 1 {
		t.Fatalf("maxErrors 1 kept %d errors", len(bad))
	}
	if got := bad[0].Error(); got != "line 2: content is required" {
		t.Fatalf("message %q", got)
	}
}
