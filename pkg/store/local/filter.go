package local

import (
	"slices"

	"github.com/recollect-dev/recollect/pkg/store"
)

// rowFilter is a store.Filter compiled against a partition's columns, so
// that testing a row reads its record only to confirm a key or tag its
// hashes let through.
type rowFilter struct {
	sets              [numStrCols][]uint32 // interned ids allowed; used only for cols in active
	active            []int
	includeArchived   bool
	includeSuperseded bool
	includeQuarantine bool
	after, before     bool
	// view: the filter asks a time view (store.Filter.View); validAt and
	// knownAt in nanos, set when asked.
	view, validAt, knownAt bool
	validNs, knownNs       int64
	knownSec               int64
	knownNsec              int32
	afterSec               int64
	afterNsec              int32
	beforeSec              int64
	beforeNsec             int32
	tags                   []string
	tagBits                uint64 // any row with one of tags has one of these
	exclude                []string
	excludeBits            uint64 // a row with one of exclude has one of these
	keys                   []string
	keyHashes              []uint32
	// dated: the filter names days; dayRows are the rows indexed under
	// them (ascending), the only ones it can match.
	dated   bool
	dayRows []int32
}

// compileFilter returns f for p's rows, and false when no row can match (a
// list names only values the partition has never held). The caller holds
// p.mu.
func (p *partition) compileFilter(f *store.Filter) (rowFilter, bool) {
	rf := rowFilter{includeArchived: f.IncludeArchived, includeSuperseded: f.IncludeSuperseded,
		includeQuarantine: f.IncludeQuarantined, tags: f.Tags, exclude: f.ExcludeTags, keys: f.Keys}
	lists := [numStrCols][]string{
		colNamespace: f.Namespaces, colSubject: f.Subjects, colSession: f.Sessions, colDomain: f.Domains,
		colType: asStrings(f.Types), colKind: asStrings(f.Kinds), colLayer: asStrings(f.Layers),
	}
	for col, list := range lists {
		if len(list) == 0 {
			continue
		}
		for _, v := range list {
			if id, ok := p.cols.dict[v]; ok && !slices.Contains(rf.sets[col], id) {
				rf.sets[col] = append(rf.sets[col], id)
			}
		}
		if len(rf.sets[col]) == 0 {
			return rf, false
		}
		rf.active = append(rf.active, col)
	}
	for _, t := range f.Tags {
		rf.tagBits |= p.cols.tagBit(t)
	}
	for _, t := range f.ExcludeTags {
		rf.excludeBits |= p.cols.tagBit(t)
	}
	for _, k := range f.Keys {
		rf.keyHashes = append(rf.keyHashes, p.cols.hashKey(k))
	}
	if len(f.Days) > 0 {
		rf.dated, rf.dayRows = true, p.dayRows(f.Days)
		if len(rf.dayRows) == 0 {
			return rf, false
		}
	}
	if !f.CreatedAfter.IsZero() {
		rf.after, rf.afterSec, rf.afterNsec = true, f.CreatedAfter.Unix(), int32(f.CreatedAfter.Nanosecond())
	}
	if !f.CreatedBefore.IsZero() {
		rf.before, rf.beforeSec, rf.beforeNsec = true, f.CreatedBefore.Unix(), int32(f.CreatedBefore.Nanosecond())
	}
	if !f.ValidAt.IsZero() {
		rf.view, rf.validAt, rf.validNs = true, true, nanos(f.ValidAt)
	}
	if !f.KnownAt.IsZero() {
		rf.view, rf.knownAt, rf.knownNs = true, true, nanos(f.KnownAt)
		rf.knownSec, rf.knownNsec = f.KnownAt.Unix(), int32(f.KnownAt.Nanosecond())
	}
	return rf, true
}

// holds is memory.TimeView.Holds on row i's columns.
func (p *partition) holds(rf *rowFilter, i int) bool {
	c := &p.cols
	if rf.knownAt {
		if c.sec[i] > rf.knownSec || c.sec[i] == rf.knownSec && c.nsec[i] > rf.knownNsec || c.invalidAt[i] <= rf.knownNs {
			return false
		}
	}
	if !rf.validAt {
		return true
	}
	if c.validFrom[i] > rf.validNs {
		return false
	}
	return c.validTo[i] > rf.validNs || rf.knownAt && c.invalidAt[i] > rf.knownNs
}

// match reports whether row i passes rf, with the semantics store.Filter
// documents (matches in the tests spells them out on a memory.Memory).
// The caller holds p.mu.
func (p *partition) match(rf *rowFilter, i int) bool {
	c := &p.cols
	if c.archived[i] && !rf.includeArchived || c.quarantined[i] && !rf.includeQuarantine {
		return false
	}
	if rf.dated {
		if _, ok := slices.BinarySearch(rf.dayRows, int32(i)); !ok {
			return false
		}
	}
	if rf.view && !p.holds(rf, i) || !rf.view && c.superseded[i] && !rf.includeSuperseded {
		return false
	}
	for _, col := range rf.active {
		if !slices.Contains(rf.sets[col], c.str[col][i]) {
			return false
		}
	}
	if rf.after && !(c.sec[i] > rf.afterSec || c.sec[i] == rf.afterSec && c.nsec[i] > rf.afterNsec) {
		return false
	}
	if rf.before && !(c.sec[i] < rf.beforeSec || c.sec[i] == rf.beforeSec && c.nsec[i] < rf.beforeNsec) {
		return false
	}
	if len(rf.keys) > 0 {
		if !slices.Contains(rf.keyHashes, c.keyHash[i]) {
			return false
		}
		key := recKey(p.record(i))
		if !slices.ContainsFunc(rf.keys, func(k string) bool { return k == string(key) }) {
			return false
		}
	}
	if len(rf.exclude) > 0 && c.tagBits[i]&rf.excludeBits != 0 && recHasAnyTag(p.record(i), rf.exclude) {
		return false
	}
	return len(rf.tags) == 0 || c.tagBits[i]&rf.tagBits != 0 && recHasAnyTag(p.record(i), rf.tags)
}

func asStrings[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}
