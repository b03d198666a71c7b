package local

import (
	"slices"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// matches reports whether m passes f (see store.Filter for the semantics).
// It is the reference the compiled rowFilter is tested against.
func matches(m *memory.Memory, f *store.Filter) bool {
	if m.Archived && !f.IncludeArchived {
		return false
	}
	if v := f.View(); v.IsZero() && m.InvalidAt != nil && !f.IncludeSuperseded || !v.IsZero() && !v.Holds(m) {
		return false
	}
	if !oneOf(f.Namespaces, m.Namespace) || !oneOf(f.Subjects, m.Subject) ||
		!oneOf(f.Domains, m.Domain) || !oneOf(f.Sessions, m.Session) || !oneOf(f.Keys, m.Key) ||
		!oneOf(f.Types, m.Type) || !oneOf(f.Kinds, m.Kind) || !oneOf(f.Layers, m.Layer) {
		return false
	}
	if !oneOf(f.Keys, m.Key) {
		return false
	}
	if len(f.Tags) > 0 && !hasAnyTag(m.Tags, f.Tags) {
		return false
	}
	if hasAnyTag(m.Tags, f.ExcludeTags) {
		return false
	}
	if !f.CreatedAfter.IsZero() && !m.CreatedAt.After(f.CreatedAfter) {
		return false
	}
	if !f.CreatedBefore.IsZero() && !m.CreatedAt.Before(f.CreatedBefore) {
		return false
	}
	return true
}

// oneOf is true when the list is empty ("any") or holds v.
func oneOf[T comparable](list []T, v T) bool {
	return len(list) == 0 || slices.Contains(list, v)
}

func hasAnyTag(tags, want []string) bool {
	return slices.ContainsFunc(tags, func(t string) bool { return slices.Contains(want, t) })
}
