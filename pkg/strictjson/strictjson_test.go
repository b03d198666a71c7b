package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

type inner struct {
	A string `json:"a"`
	B int    `json:"b"`
}

type outer struct {
	ID    string          `json:"id"`
	In    inner           `json:"in"`
	List  []inner         `json:"list"`
	Meta  map[string]any  `json:"meta"`
	Raw   json.RawMessage `json:"raw"`
	Count int             `json:"count"`
}

func TestUnmarshal(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		field string // "" = accepted
		want  string // substring of the reason
	}{
		{"one object", `{"id":"x","in":{"a":"y","b":2}}`, "", ""},
		{"whitespace around", " \n{\"id\":\"x\"}\n\t ", "", ""},
		{"nested arrays of objects", `{"list":[{"a":"1"},{"a":"2"}],"meta":{"k":[{"a":1},{"a":2}]}}`, "", ""},
		{"same key in sibling objects", `{"list":[{"a":"1","b":1},{"a":"2","b":2}]}`, "", ""},
		{"same key at two levels", `{"id":"x","in":{"a":"id"},"meta":{"id":1}}`, "", ""},
		{"empty", ``, "body", "is empty"},
		{"only spaces", "   \n", "body", "is empty"},
		{"two objects", `{"id":"a"}{"id":"b"}`, "body", "data after the JSON value"},
		{"ndjson", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", "body", "data after the JSON value"},
		{"trailing word", `{"id":"a"} xyz`, "body", "data after the JSON value"},
		{"trailing brace", `{"id":"a"}}`, "body", "data after the JSON value"},
		{"trailing bracket", `{"id":"a"}]`, "body", "data after the JSON value"},
		{"trailing number", `{"id":"a"} 1`, "body", "data after the JSON value"},
		{"unterminated", `{"id":"a"`, "body", "ends before"},
		{"syntax error", `{"id":}`, "body", "not valid JSON"},
		{"duplicate top key", `{"id":"a","id":"b"}`, "id", "appears twice"},
		{"duplicate escaped key", `{"id":"a","\u0069d":"b"}`, "id", "appears twice"},
		{"duplicate key differing in case", `{"id":"a","ID":"b"}`, "ID", "differ only in case"},
		{"duplicate nested key", `{"in":{"a":"1","a":"2"}}`, "in.a", "appears twice"},
		{"duplicate in array element", `{"list":[{"a":"1"},{"b":1,"b":2}]}`, "list[1].b", "appears twice"},
		{"duplicate in map", `{"meta":{"k":1,"k":2}}`, "meta.k", "appears twice"},
		{"duplicate deep in raw", `{"raw":[[{"x":{"y":1,"y":2}}]]}`, "raw[0][0].x.y", "appears twice"},
		{"unknown field", `{"id":"a","colour":"red"}`, "colour", "not a known field"},
		{"unknown nested field", `{"in":{"c":1}}`, "c", "not a known field"},
		{"empty field name", `{"id":"a","":1}`, "body", "empty name"},
		{"wrong type", `{"count":"many"}`, "count", "must be a int"},
		{"not an object", `"x"`, "body", "must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v outer
			err := Unmarshal([]byte(c.in), &v)
			if c.field == "" {
				if err != nil {
					t.Fatalf("Unmarshal(%q): %v", c.in, err)
				}
				return
			}
			var fe *memory.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Unmarshal(%q) = %v, want a *memory.FieldError", c.in, err)
			}
			if !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("error %v does not match memory.ErrInvalid", err)
			}
			if fe.Field != c.field || !strings.Contains(fe.Reason, c.want) {
				t.Fatalf("Unmarshal(%q) = field %q reason %q, want field %q reason containing %q", c.in, fe.Field, fe.Reason, c.field, c.want)
			}
		})
	}
}

func TestUnmarshalValues(t *testing.T) {
	var v outer
	if err := Unmarshal([]byte(`{"id":"x","list":[{"a":"p","b":3}],"meta":{"K":1,"k2":[1,2]}}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.ID != "x" || len(v.List) != 1 || v.List[0].B != 3 || len(v.Meta) != 2 {
		t.Fatalf("decoded %+v", v)
	}
}

// FuzzStrictDecode checks that Unmarshal never panics, that whatever it
// accepts encoding/json accepts too with the same result, and that every
// refusal is a FieldError.
func FuzzStrictDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":"x","in":{"a":"y","b":2}}`,
		`{"list":[{"a":"1"},{"a":"2"}],"meta":{"k":[{"a":1}]}}`,
		`{"id":"a"}{"id":"b"}`,
		`{"id":"a","\u0069d":"b"}`,
		`{"raw":[[{"x":{"y":1,"y":2}}]]}`,
		`{"id":"a"} xyz`,
		`[1,2,{"a":[]}]`,
		``,
		`{"A":1,"a":2}`,
		`{"a\"b":1,"a\\\"b":2,"x":{"a\"b":3}}`,
		`{"k":"{\"k\":1}","K2":[{"k":1},{"k":2}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The byte scan and the token walk agree on every input.
		if fast, slow := Check(data), walk(data); (fast == nil) != (slow == nil) {
			t.Fatalf("Check(%q) = %v but the token walk says %v", data, fast, slow)
		}
		var strict outer
		err := Unmarshal(data, &strict)
		if err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Unmarshal(%q) = %v, not a FieldError", data, err)
			}
			return
		}
		var loose outer
		if err := json.Unmarshal(data, &loose); err != nil {
			t.Fatalf("strict accepted %q but encoding/json refused: %v", data, err)
		}
		a, _ := json.Marshal(strict)
		b, _ := json.Marshal(loose)
		if string(a) != string(b) {
			t.Fatalf("strict %s != loose %s for %q", a, b, data)
		}
	})
}
