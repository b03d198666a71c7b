package local

import "encoding/binary"

// recArena holds a partition's records: each memory in its binary encoding
// (recordbin.go, vector and chunk vectors left out) in a few large blocks,
// so that a million memories cost about their encoded size plus 16 bytes
// each and hold no pointer for the garbage collector to mark. A
// memory.Memory is decoded only when one is handed out.
//
// An entry is a header, the row it belongs to and the record's length (4
// bytes each, little endian), then the record. The row lets a block be
// walked and its live entries moved: an entry is live while its row's
// recLoc points at it. A replaced or deleted entry becomes garbage, except
// that a record replaced by one of the same length (a bumped counter or
// access time) is rewritten in place. A block left with nothing live is
// dropped (the tail is reset instead); once garbage passes a quarter of
// the bytes the blocks hold, each write moves the live entries of the
// block with the most garbage to the tail and drops it, so that the work
// stays proportional to the garbage written.
type recArena struct {
	blocks []arenaBlock // a free slot has a nil buf
	free   []uint32     // free slots
	tail   uint32       // the block appended to, when blocks is not empty
	used   int          // bytes the blocks hold, live or not
	live   int          // bytes of live entries, headers included
}

// recLoc is where a row's entry starts.
type recLoc struct{ block, off uint32 }

type arenaBlock struct {
	buf  []byte
	live int
}

const (
	entryHeader   = 8
	minBlock      = 4 << 10
	maxBlock      = 1 << 20
	largeEntry    = maxBlock / 4 // entries from this size on get a block of their own
	evacuateAfter = minBlock     // least garbage worth moving entries for
)

// add appends rec as row's entry and returns where it is.
func (a *recArena) add(row int, rec []byte) recLoc {
	need := entryHeader + len(rec)
	var bi uint32
	switch {
	case need >= largeEntry:
		bi = a.newBlock(need)
	case len(a.blocks) == 0 || cap(a.blocks[a.tail].buf)-len(a.blocks[a.tail].buf) < need:
		a.tail = a.newBlock(a.blockSize())
		bi = a.tail
	default:
		bi = a.tail
	}
	b := &a.blocks[bi]
	off := len(b.buf)
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(row))
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(len(rec)))
	b.buf = append(b.buf, rec...)
	b.live += need
	a.live += need
	a.used += need
	return recLoc{block: bi, off: uint32(off)}
}

// blockSize is the capacity of the next tail: an eighth of the live bytes
// within bounds, so that a small partition holds little spare room and a
// big one few blocks.
func (a *recArena) blockSize() int { return min(maxBlock, max(minBlock, a.live/8)) }

// newBlock returns the slot of a new empty block of the given capacity.
func (a *recArena) newBlock(size int) uint32 {
	b := arenaBlock{buf: make([]byte, 0, size)}
	if n := len(a.free); n > 0 {
		bi := a.free[n-1]
		a.free = a.free[:n-1]
		a.blocks[bi] = b
		return bi
	}
	a.blocks = append(a.blocks, b)
	return uint32(len(a.blocks) - 1)
}

// get returns the record at l. It aliases the arena: valid until the next
// change to it.
func (a *recArena) get(l recLoc) []byte {
	b := a.blocks[l.block].buf[l.off:]
	n := binary.LittleEndian.Uint32(b[4:])
	return b[entryHeader : entryHeader+n : entryHeader+n]
}

// replace makes rec row's entry instead of the one at l, in place when it
// has the same length, and returns where it is.
func (a *recArena) replace(l recLoc, row int, rec []byte) recLoc {
	if old := a.get(l); len(old) == len(rec) {
		copy(old, rec)
		return l
	}
	a.drop(l)
	return a.add(row, rec)
}

// setRow records that the entry at l now belongs to row (a delete moved it).
func (a *recArena) setRow(l recLoc, row int) {
	binary.LittleEndian.PutUint32(a.blocks[l.block].buf[l.off:], uint32(row))
}

// drop turns the entry at l into garbage.
func (a *recArena) drop(l recLoc) {
	b := &a.blocks[l.block]
	n := entryHeader + int(binary.LittleEndian.Uint32(b.buf[l.off+4:]))
	b.live -= n
	a.live -= n
	if b.live > 0 {
		return
	}
	a.used -= len(b.buf)
	if l.block == a.tail {
		b.buf = b.buf[:0]
		return
	}
	*b = arenaBlock{}
	a.free = append(a.free, l.block)
}

// garbage is how many bytes the blocks hold that no row refers to.
func (a *recArena) garbage() int { return a.used - a.live }

// tidy moves the live entries of the block with the most garbage to the
// tail when there is enough garbage in all, updating locs (row i's entry
// is at locs[i]).
func (a *recArena) tidy(locs []recLoc) {
	if g := a.garbage(); g < evacuateAfter || 4*g < a.used {
		return
	}
	victim, most := -1, 0
	for bi := range a.blocks {
		if g := len(a.blocks[bi].buf) - a.blocks[bi].live; g > most {
			victim, most = bi, g
		}
	}
	if victim < 0 {
		return
	}
	a.evacuate(uint32(victim), locs)
}

// evacuate moves block bi's live entries elsewhere and frees it.
func (a *recArena) evacuate(bi uint32, locs []recLoc) {
	if bi == a.tail {
		// Entries cannot move within their own block: start another.
		a.tail = a.newBlock(a.blockSize())
	}
	buf := a.blocks[bi].buf
	for off := 0; off < len(buf); {
		row := int(binary.LittleEndian.Uint32(buf[off:]))
		n := int(binary.LittleEndian.Uint32(buf[off+4:]))
		here := recLoc{block: bi, off: uint32(off)}
		if row < len(locs) && locs[row] == here {
			locs[row] = a.add(row, buf[off+entryHeader:off+entryHeader+n])
			a.drop(here)
		}
		off += entryHeader + n
	}
	if b := &a.blocks[bi]; b.buf != nil {
		// Nothing was live (drop frees the block with its last entry).
		a.used -= len(b.buf)
		*b = arenaBlock{}
		a.free = append(a.free, bi)
	}
}
