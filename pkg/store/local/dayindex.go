package local

import (
	bits64 "math/bits"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// The day index answers store.Filter.Days: a second inverted index beside
// the text's, keyed by day number instead of term hash, so that it moves
// with the rows exactly as the text index does (lexIndex). A memory's days
// are store.MemoryDays, recomputed from its record when it changes or
// goes, never stored.

// dayVector is m's days as the index's document.
func dayVector(m *memory.Memory) lexical.SparseVector {
	days := store.MemoryDays(m)
	v := lexical.SparseVector{Indices: make([]uint32, len(days)), Values: make([]float32, len(days))}
	for i, d := range days {
		v.Indices[i], v.Values[i] = uint32(d), 1
	}
	return v
}

// sameDays reports whether two memories index under the same days without
// parsing either: same event time and same content.
func sameDays(a, b *memory.Memory) bool {
	return a.CreatedAt.Equal(b.CreatedAt) && a.Content == b.Content
}

// dayRows lists the rows indexed under any of days, ascending, each once:
// marked in a bitmap of the partition's rows and read back in order, which
// costs less than sorting when a month's postings are thousands. The
// caller holds p.mu.
func (p *partition) dayRows(days []int32) []int32 {
	var bits []uint64
	n := 0
	for _, d := range days {
		pl := p.days.terms[uint32(d)]
		if pl == nil {
			continue
		}
		if bits == nil {
			bits = make([]uint64, (len(p.recs)+63)/64)
		}
		for _, doc := range pl.docs {
			if r := p.days.docRow[doc]; r >= 0 && bits[r>>6]&(1<<(r&63)) == 0 {
				bits[r>>6] |= 1 << (r & 63)
				n++
			}
		}
	}
	rows := make([]int32, 0, n)
	for w, b := range bits {
		for b != 0 {
			rows = append(rows, int32(w<<6+bits64.TrailingZeros64(b)))
			b &= b - 1
		}
	}
	return rows
}

// redate re-indexes row i's days when m, its new version, changes its
// event time or content. The caller holds p.mu for writing.
func (p *partition) redate(i int, m *memory.Memory) error {
	old, err := p.decode(i)
	if err != nil {
		return err
	}
	if !sameDays(&old, m) {
		p.days.replace(i, dayVector(&old), dayVector(m))
	}
	return nil
}
