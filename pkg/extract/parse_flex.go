package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// rawFact is one fact as a model wrote it, decoded leniently: models put
// numbers or objects where strings were asked, tags in one string, explicit
// as "yes", and name fields their own way.
type rawFact struct {
	Key      string
	Value    string
	Type     string
	Kind     string
	Tags     []string
	Explicit *bool
	Evidence string
}

// Field names models use, first the asked-for one.
var (
	keyFields      = []string{"key", "name", "title"}
	valueFields    = []string{"value", "fact", "content", "text", "statement", "memory", "description"}
	typeFields     = []string{"type", "category", "fact_type"}
	kindFields     = []string{"kind", "memory_kind"}
	tagFields      = []string{"tags", "labels", "keywords"}
	explicitFields = []string{"explicit", "is_explicit", "stated", "explicitly_stated"}
	evidenceFields = []string{"evidence", "quote", "evidence_quote", "source_text"}
)

func (f *rawFact) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		// Bernard's format: a bare string is the fact.
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		f.Value = strings.TrimSpace(s)
		if f.Value == "" {
			return errors.New("fact has no value")
		}
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	lower := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		lower[strings.ToLower(strings.TrimSpace(k))] = v
	}
	pick := func(names []string) json.RawMessage {
		for _, n := range names {
			if v, ok := lower[n]; ok && !isNull(v) {
				return v
			}
		}
		return nil
	}
	f.Key = flexString(pick(keyFields))
	f.Value = flexString(pick(valueFields))
	f.Type = strings.ToLower(flexString(pick(typeFields)))
	f.Kind = strings.ToLower(flexString(pick(kindFields)))
	f.Tags = flexTags(pick(tagFields))
	f.Explicit = flexBool(pick(explicitFields))
	f.Evidence = flexString(pick(evidenceFields))
	if f.Value == "" {
		return errors.New("fact has no value")
	}
	return nil
}

func isNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}

// flexString turns any JSON value into text: strings as they are, numbers
// and booleans as written, arrays joined, objects by their value-like
// field or as "k: v" pairs.
func flexString(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return ""
		}
		return strings.TrimSpace(s)
	case '[':
		var xs []json.RawMessage
		if json.Unmarshal(v, &xs) != nil {
			return ""
		}
		parts := make([]string, 0, len(xs))
		for _, x := range xs {
			if s := flexString(x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return ""
		}
		for _, n := range valueFields {
			if x, ok := m[n]; ok {
				if s := flexString(x); s != "" {
					return s
				}
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			if s := flexString(m[k]); s != "" {
				parts = append(parts, k+": "+s)
			}
		}
		return strings.Join(parts, "; ")
	case 'n':
		return ""
	}
	return string(v) // a number or a boolean, as written
}

// flexTags accepts an array of anything or one comma-separated string.
func flexTags(v json.RawMessage) []string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil
	}
	var parts []string
	if v[0] == '[' {
		var xs []json.RawMessage
		if json.Unmarshal(v, &xs) != nil {
			return nil
		}
		for _, x := range xs {
			parts = append(parts, flexString(x))
		}
	} else {
		parts = strings.FieldsFunc(flexString(v), func(r rune) bool { return r == ',' || r == ';' })
	}
	out := parts[:0]
	for _, p := range parts {
		// "#go", "##go" and "# go" are the tag "go".
		if p = strings.TrimSpace(strings.TrimLeftFunc(p, func(r rune) bool { return r == '#' || unicode.IsSpace(r) })); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// flexBool reads true/false, "yes"/"no", 1/0; nil when absent or unclear,
// which maps to the unknown confidence.
func flexBool(v json.RawMessage) *bool {
	s := strings.ToLower(flexString(v))
	t, f := true, false
	switch s {
	case "true", "yes", "y", "1", "explicit", "stated":
		return &t
	case "false", "no", "n", "0", "inferred", "implicit":
		return &f
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		if x != 0 {
			return &t
		}
		return &f
	}
	return nil
}
