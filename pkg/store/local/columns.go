package local

import (
	"hash/maphash"
	"math"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// String columns a filter can test, each an interned id per row.
const (
	colNamespace = iota
	colSubject
	colSession
	colDomain
	colType
	colKind
	colLayer
	numStrCols
)

// columns hold, per row, the values filters test, apart from recs: a scan
// then reads a few bytes per row instead of a whole memory.Memory. Strings
// are interned per partition; an id is never reused, so the dictionary only
// grows with the distinct values the partition has seen.
type columns struct {
	dict     map[string]uint32
	str      [numStrCols][]uint32
	archived []bool
	// superseded is InvalidAt != nil.
	superseded []bool
	// quarantined is Quarantine != "".
	quarantined []bool
	sec         []int64 // CreatedAt as Unix seconds and nanoseconds
	nsec        []int32
	// The two clocks' other ends, in clamped Unix nanoseconds (nanos):
	// ValidSince, ValidTo (math.MaxInt64 while open) and InvalidAt
	// (math.MaxInt64 when nil).
	validFrom, validTo, invalidAt []int64
	// Keys and tags are not interned (they may be as many as the rows);
	// these let a filter skip, without reading the record, every row
	// whose key hash differs or that has none of the tags' bits.
	keyHash []uint32
	tagBits []uint64 // one bit per tag, from its hash
	seed    maphash.Seed
	// writes counts the changes to the rows (set, move, truncate): what
	// is computed from the columns holds while it stays the same.
	writes uint64
}

func newColumns() columns { return columns{dict: make(map[string]uint32), seed: maphash.MakeSeed()} }

func (c *columns) hashKey(key string) uint32 { return uint32(maphash.String(c.seed, key)) }

func (c *columns) tagBit(tag string) uint64 { return 1 << (maphash.String(c.seed, tag) & 63) }

func (c *columns) intern(s string) uint32 {
	id, ok := c.dict[s]
	if !ok {
		id = uint32(len(c.dict))
		c.dict[s] = id
	}
	return id
}

// set writes row i from m, appending when i is the row count.
func (c *columns) set(i int, m *memory.Memory) {
	c.writes++
	vals := [numStrCols]string{m.Namespace, m.Subject, m.Session, m.Domain, string(m.Type), string(m.Kind), string(m.Layer)}
	if i == len(c.archived) {
		for col := range c.str {
			c.str[col] = append(c.str[col], 0)
		}
		c.archived = append(c.archived, false)
		c.superseded = append(c.superseded, false)
		c.quarantined = append(c.quarantined, false)
		c.sec = append(c.sec, 0)
		c.nsec = append(c.nsec, 0)
		c.validFrom, c.validTo, c.invalidAt = append(c.validFrom, 0), append(c.validTo, 0), append(c.invalidAt, 0)
		c.keyHash = append(c.keyHash, 0)
		c.tagBits = append(c.tagBits, 0)
	}
	for col, v := range vals {
		c.str[col][i] = c.intern(v)
	}
	c.archived[i] = m.Archived
	c.superseded[i] = m.Superseded()
	c.quarantined[i] = m.Quarantined()
	c.sec[i], c.nsec[i] = m.CreatedAt.Unix(), int32(m.CreatedAt.Nanosecond())
	c.validFrom[i], c.validTo[i], c.invalidAt[i] = nanos(m.ValidSince()), math.MaxInt64, math.MaxInt64
	if end, closed := m.ValidTo(); closed {
		c.validTo[i] = nanos(end)
	}
	if m.InvalidAt != nil {
		c.invalidAt[i] = nanos(*m.InvalidAt)
	}
	c.keyHash[i] = c.hashKey(m.Key)
	c.tagBits[i] = 0
	for _, t := range m.Tags {
		c.tagBits[i] |= c.tagBit(t)
	}
}

// move copies row src over row dst.
func (c *columns) move(dst, src int) {
	c.writes++
	for col := range c.str {
		c.str[col][dst] = c.str[col][src]
	}
	c.archived[dst], c.superseded[dst], c.quarantined[dst] = c.archived[src], c.superseded[src], c.quarantined[src]
	c.sec[dst], c.nsec[dst] = c.sec[src], c.nsec[src]
	c.validFrom[dst], c.validTo[dst], c.invalidAt[dst] = c.validFrom[src], c.validTo[src], c.invalidAt[src]
	c.keyHash[dst], c.tagBits[dst] = c.keyHash[src], c.tagBits[src]
}

// truncate keeps the first n rows.
func (c *columns) truncate(n int) {
	c.writes++
	for col := range c.str {
		c.str[col] = c.str[col][:n]
	}
	c.archived, c.superseded, c.quarantined = c.archived[:n], c.superseded[:n], c.quarantined[:n]
	c.sec, c.nsec = c.sec[:n], c.nsec[:n]
	c.validFrom, c.validTo, c.invalidAt = c.validFrom[:n], c.validTo[:n], c.invalidAt[:n]
	c.keyHash, c.tagBits = c.keyHash[:n], c.tagBits[:n]
}

// The instants Unix nanoseconds can hold; nanos clamps to them.
var (
	minNanos = time.Unix(0, math.MinInt64)
	maxNanos = time.Unix(0, math.MaxInt64)
)

// nanos is t in Unix nanoseconds, clamped to the int64 range (the zero
// time is math.MinInt64: before everything).
func nanos(t time.Time) int64 {
	switch {
	case t.Before(minNanos):
		return math.MinInt64
	case t.After(maxNanos):
		return math.MaxInt64
	}
	return t.UnixNano()
}
