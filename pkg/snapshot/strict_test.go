package snapshot

import (
	"errors"
	"strings"
	"testing"
)

// TestReaderStrictLines: a line is exactly one memory object; a repeated
// key, an unknown field or data after the object is a bad line naming the
// field or the problem.
func TestReaderStrictLines(t *testing.T) {
	a := record("a", "alpha")
	tests := []struct {
		name, line, field, want string
	}{
		{"two objects on a line", a + a, "", "data after the JSON value"},
		{"trailing word", a + " xyz", "", "data after the JSON value"},
		{"duplicate key", `{"id":"a","id":"b"}`, "id", "appears twice"},
		{"duplicate escaped key", `{"id":"a","\u0069d":"b"}`, "id", "appears twice"},
		{"duplicate nested key", `{"id":"a","metadata":{"k":1,"k":2}}`, "metadata.k", "appears twice"},
		{"unknown field", `{"id":"a","colour":"red"}`, "colour", "not a known field"},
		{"wrong type", `{"id":"a","importance":"high"}`, "importance", "must be a float64"},
		{"not an object", `[1,2]`, "", "not a memory record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(tt.line+"\n"), 0)
			_, err := rd.Next()
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("Next() = %v, want a *LineError", err)
			}
			if le.Line != 1 || le.Field != tt.field || !strings.Contains(le.Message, tt.want) {
				t.Fatalf("line %d field %q message %q, want line 1 field %q message containing %q", le.Line, le.Field, le.Message, tt.field, tt.want)
			}
		})
	}
}

func TestBernardStrict(t *testing.T) {
	entry := `{"id":"1","fact":"f","embedding":[],"source":"exit","domain":"general","createdAt":"2025-01-01T00:00:00Z","accessCount":0}`
	tests := []struct{ name, in, want string }{
		{"two arrays", "[" + entry + "][" + entry + "]", "data after the JSON value"},
		{"trailing data", "[" + entry + "] xyz", "data after the JSON value"},
		{"duplicate key", `[{"id":"1","fact":"a","fact":"b"}]`, "[0].fact appears twice"},
		{"unknown field", `[{"id":"1","fact":"a","colour":"red"}]`, "colour is not a known field"},
		{"not an array", entry, "must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Bernard(strings.NewReader(tt.in), BernardOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Bernard(%s) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
}
