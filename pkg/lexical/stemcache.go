package lexical

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Texts are read again and again: recall checks every candidate's text for
// a query term, on every query, and a tenant's vocabulary is small. The
// stems of recent words are kept in a direct-mapped table, lock-free: a
// slot holds one word and its stem, and a word hashing to a taken slot
// replaces it. A hit costs a hash and a compare instead of the stemmer's
// steps and its two allocations.
const stemSlots = 1 << 14

type stemEntry struct{ word, stem string }

var (
	stemTable [stemSlots]atomic.Pointer[stemEntry]
	stemSeed  = maphash.MakeSeed()
)

// cachedStem is stem(w), from the table when w is in its slot.
func cachedStem(w string) string {
	if len(w) <= 2 {
		return w
	}
	slot := &stemTable[slotOf(w)]
	if e := slot.Load(); e != nil && e.word == w {
		return e.stem
	}
	s := stem(w)
	// w may be a view into a long text: the table keeps its own copy.
	word := strings.Clone(w)
	if s == w {
		s = word
	}
	slot.Store(&stemEntry{word: word, stem: s})
	return s
}

func slotOf(w string) uint64 { return maphash.String(stemSeed, w) & (stemSlots - 1) }
