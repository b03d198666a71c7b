package query

import (
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// listFilters reads GET /v1/memories' narrowing parameters besides
// namespace and domain: layer, type, kind and subject, one value each. An
// error names the parameter.
func listFilters(params url.Values, f *store.Filter) error {
	if v := params.Get("layer"); v != "" {
		l := memory.Layer(v)
		if !l.Valid() {
			return &memory.FieldError{Field: "layer", Reason: fmt.Sprintf("must be buffer, working or core (got %q)", v)}
		}
		f.Layers = []memory.Layer{l}
	}
	if v := params.Get("type"); v != "" {
		t := memory.Type(v)
		if !t.Valid() {
			return &memory.FieldError{Field: "type", Reason: fmt.Sprintf("is not a memory type (got %q)", v)}
		}
		f.Types = []memory.Type{t}
	}
	if v := params.Get("kind"); v != "" {
		k := memory.Kind(v)
		if !k.Valid() {
			return &memory.FieldError{Field: "kind", Reason: fmt.Sprintf("is not a memory kind (got %q)", v)}
		}
		f.Kinds = []memory.Kind{k}
	}
	if v := params.Get("subject"); v != "" {
		if utf8.RuneCountInString(v) > memory.MaxNameChars {
			return &memory.FieldError{Field: "subject", Reason: fmt.Sprintf("is longer than %d characters", memory.MaxNameChars)}
		}
		f.Subjects = []string{v}
	}
	return nil
}
