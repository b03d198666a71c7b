package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/web"
)

// MaxChain bounds how many versions a history's chain walks.
const MaxChain = 100

// History is a memory's provenance, from its record: there is no event log
// per memory, so Source is always "record". Chain is every version of the
// fact, oldest first, this memory included: what it was derived from
// (merged, reconciled, distilled), what superseded it up to the current
// memory, and what it superseded. Each version shows both timelines:
// valid time (valid_from … valid_until: when it was true in the world) and
// record time (created_at … invalid_at: when Recollect learnt it and when
// it learnt otherwise).
type History = api.History

// HistoryVersion is one memory of a history's chain.
type HistoryVersion = api.HistoryVersion

// HistorySourceRecord is History.Source: the history is read from the
// memory record itself.
const HistorySourceRecord = "record"

func (q *Query) history(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	m, err := q.store.Get(r.Context(), tenant, r.PathValue("id"))
	if err != nil {
		q.fail(w, r, "memory history", err)
		return
	}
	chain, truncated, err := q.chain(r.Context(), tenant, m)
	if err != nil {
		q.fail(w, r, "memory history", err)
		return
	}
	h := History{ID: m.ID, Tenant: m.Tenant, Namespace: m.Namespace, Source: HistorySourceRecord, Origin: m.Source,
		SourceIDs: m.SourceIDs, CreatedAt: m.CreatedAt, ModifiedAt: m.ModifiedAt, LastAccessed: m.LastAccessed,
		ValidFrom: m.ValidFrom, InvalidAt: m.InvalidAt, Layer: m.Layer, Archived: m.Archived,
		RepetitionCount: m.RepetitionCount, AccessCount: m.AccessCount, SuccessCount: m.SuccessCount,
		SupersededBy: m.SupersededBy, DerivedFrom: m.DerivedFrom, Chain: chain, ChainTruncated: truncated}
	h.ValidFrom = m.ValidSince()
	for _, v := range chain {
		if v.ID == m.ID {
			h.ValidUntil = v.ValidUntil
		}
	}
	if h.SourceIDs == nil {
		h.SourceIDs = []string{}
	}
	if h.DerivedFrom == nil {
		h.DerivedFrom = []string{}
	}
	web.WriteJSON(w, http.StatusOK, h)
}

// chain walks the versions of m's fact: back along DerivedFrom, forward
// along SupersededBy, and back to the memories whose SupersededBy names a
// version, up to MaxChain versions. Ids that name no memory (deleted) are
// skipped. The lifecycle links are read in one scroll of the tenant,
// superseded and archived memories included.
func (q *Query) chain(ctx context.Context, tenant string, m memory.Memory) ([]HistoryVersion, bool, error) {
	linked := map[string]memory.Memory{} // memories with a link either way
	replaced := map[string][]string{}    // id → the ids it superseded
	err := q.store.Scroll(ctx, tenant, everything, func(o memory.Memory) error {
		if o.SupersededBy == "" && len(o.DerivedFrom) == 0 {
			return nil
		}
		o.Vector = nil
		linked[o.ID] = o
		if o.SupersededBy != "" {
			replaced[o.SupersededBy] = append(replaced[o.SupersededBy], o.ID)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("read the links of tenant %s: %w", tenant, err)
	}
	lookup := func(id string) (memory.Memory, bool, error) {
		if o, ok := linked[id]; ok {
			return o, true, nil
		}
		o, err := q.store.Get(ctx, tenant, id)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return o, false, nil
			}
			return o, false, fmt.Errorf("get version %s: %w", id, err)
		}
		return o, true, nil
	}
	m.Vector = nil
	found := map[string]memory.Memory{m.ID: m}
	queue := []memory.Memory{m}
	truncated := false
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		next := slices.Concat(cur.DerivedFrom, replaced[cur.ID])
		if cur.SupersededBy != "" {
			next = append(next, cur.SupersededBy)
		}
		for _, id := range next {
			if _, seen := found[id]; seen {
				continue
			}
			if len(found) == MaxChain {
				truncated = true
				break
			}
			o, ok, err := lookup(id)
			if err != nil {
				return nil, false, err
			}
			if ok {
				found[id] = o
				queue = append(queue, o)
			}
		}
	}
	return orderVersions(found), truncated, nil
}

// orderVersions lists versions oldest first: a memory before what
// superseded it and before what was derived from it, and otherwise by
// creation time, then id. A cycle (which no stage writes) is broken by
// the same order.
func orderVersions(found map[string]memory.Memory) []HistoryVersion {
	before := map[string][]string{} // id → ids that must come after it
	waits := map[string]int{}       // id → versions still to come before it
	edge := func(from, to string) {
		if _, ok := found[from]; !ok {
			return
		}
		if _, ok := found[to]; !ok || from == to {
			return
		}
		before[from] = append(before[from], to)
		waits[to]++
	}
	for id, m := range found {
		edge(id, m.SupersededBy)
		for _, src := range m.DerivedFrom {
			edge(src, id)
		}
	}
	older := func(a, b memory.Memory) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	}
	left := slices.SortedFunc(maps.Values(found), older)
	out := make([]HistoryVersion, 0, len(found))
	for len(left) > 0 {
		i := slices.IndexFunc(left, func(m memory.Memory) bool { return waits[m.ID] == 0 })
		if i < 0 {
			i = 0 // a cycle: take the oldest
		}
		m := left[i]
		left = slices.Delete(left, i, i+1)
		for _, id := range before[m.ID] {
			waits[id]--
		}
		out = append(out, HistoryVersion{ID: m.ID, Content: m.Content, Key: m.Key, Layer: m.Layer, ValidFrom: m.ValidSince(),
			ValidUntil: validUntil(m, found), InvalidAt: m.InvalidAt, SupersededBy: m.SupersededBy, DerivedFrom: m.DerivedFrom, Archived: m.Archived,
			CreatedAt: m.CreatedAt})
	}
	return out
}

// validUntil is m's valid_until, migrated on read for a memory superseded
// before it existed: its successor's valid_from when the chain holds it,
// else its invalid_at (consolidate writes the same at the next epoch).
func validUntil(m memory.Memory, found map[string]memory.Memory) *time.Time {
	if m.ValidUntil != nil || m.InvalidAt == nil {
		return m.ValidUntil
	}
	from := *m.InvalidAt
	if next, ok := found[m.SupersededBy]; ok {
		from = next.ValidSince()
	}
	m.Supersede(m.SupersededBy, from, *m.InvalidAt)
	return m.ValidUntil
}
