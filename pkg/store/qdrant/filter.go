package qdrant

import (
	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// toFilter is the Qdrant filter for tenant's memories matching f: the
// tenant always, each set list as "any of", archived and superseded ones
// left out unless asked for, and strict creation-time bounds at microsecond precision.
func toFilter(tenant string, f store.Filter) *qdrant.Filter {
	q := &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(fTenant, tenant)}}
	q.Must = appendAnyOf(q.Must, fNamespace, f.Namespaces)
	q.Must = appendAnyOf(q.Must, fSubject, f.Subjects)
	q.Must = appendAnyOf(q.Must, fDomain, f.Domains)
	q.Must = appendAnyOf(q.Must, fType, asStrings(f.Types))
	q.Must = appendAnyOf(q.Must, fKind, asStrings(f.Kinds))
	q.Must = appendAnyOf(q.Must, fLayer, asStrings(f.Layers))
	q.Must = appendAnyOf(q.Must, fTags, f.Tags)
	q.MustNot = appendAnyOf(q.MustNot, fTags, f.ExcludeTags)
	q.Must = appendAnyOf(q.Must, fSession, f.Sessions)
	q.Must = appendAnyOf(q.Must, fKey, f.Keys)
	if !f.CreatedAfter.IsZero() || !f.CreatedBefore.IsZero() {
		r := &qdrant.Range{}
		if !f.CreatedAfter.IsZero() {
			r.Gt = qdrant.PtrOf(float64(f.CreatedAfter.UnixMicro()))
		}
		if !f.CreatedBefore.IsZero() {
			r.Lt = qdrant.PtrOf(float64(f.CreatedBefore.UnixMicro()))
		}
		q.Must = append(q.Must, qdrant.NewRange(fCreatedAtUS, r))
	}
	if len(f.Days) > 0 {
		days := make([]int64, len(f.Days))
		for i, d := range f.Days {
			days[i] = int64(d)
		}
		q.Must = append(q.Must, qdrant.NewMatchInts(fTimeDays, days...))
	}
	if !f.IncludeArchived {
		// must_not true rather than must false: a point written without the
		// field counts as not archived.
		q.MustNot = append(q.MustNot, qdrant.NewMatchBool(fArchived, true))
	}
	if v := f.View(); !v.IsZero() {
		q.Must = append(q.Must, viewConditions(v)...)
	} else if !f.IncludeSuperseded {
		// Likewise: points written before the field existed count as not
		// superseded (memories were not superseded then).
		q.MustNot = append(q.MustNot, qdrant.NewMatchBool(fSuperseded, true))
	}
	if !f.IncludeQuarantined {
		// Points written before the field existed were never quarantined.
		q.MustNot = append(q.MustNot, qdrant.NewMatchBool(fQuarantined, true))
	}
	return q
}

// tenantFilter matches every memory of tenant, archived and superseded
// ones included.
func tenantFilter(tenant string) *qdrant.Filter {
	return &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(fTenant, tenant)}}
}

func appendAnyOf(conds []*qdrant.Condition, field string, values []string) []*qdrant.Condition {
	if len(values) == 0 {
		return conds
	}
	return append(conds, qdrant.NewMatchKeywords(field, values...))
}

func asStrings[T memory.Type | memory.Kind | memory.Layer](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
