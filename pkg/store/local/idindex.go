package local

import "hash/maphash"

// idIndex maps a partition's ids to their rows without holding the ids: a
// table of slots, each 32 bits of an id's hash and its row, probed
// linearly from the hash; the id itself is read from the row's record when
// the hash matches. A map[string]int cost a million memories about a
// hundred bytes each, key strings included, and a million pointers for
// the garbage collector to mark; this costs 11 to 22 bytes each and none.
type idIndex struct {
	slots []uint64 // 0: empty; else hash<<32 | row+1
	n     int
	seed  maphash.Seed
}

const minIDSlots = 16

func newIDIndex() idIndex { return idIndex{seed: maphash.MakeSeed()} }

func (x *idIndex) hash(id string) uint32 { return uint32(maphash.String(x.seed, id)) }

func (x *idIndex) len() int { return x.n }

// find returns the slot holding id, or -1; idOf returns a row's id.
func (x *idIndex) find(id string, idOf func(row int) string) int {
	if x.n == 0 {
		return -1
	}
	h := x.hash(id)
	mask := len(x.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return -1
		}
		if uint32(s>>32) == h && idOf(int(uint32(s))-1) == id {
			return i
		}
	}
}

// get returns id's row.
func (x *idIndex) get(id string, idOf func(row int) string) (int, bool) {
	i := x.find(id, idOf)
	if i < 0 {
		return 0, false
	}
	return int(uint32(x.slots[i])) - 1, true
}

// add maps id, which the index does not hold, to row.
func (x *idIndex) add(id string, row int) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.resize(max(minIDSlots, 2*len(x.slots)))
	}
	x.put(uint64(x.hash(id))<<32 | uint64(row+1))
	x.n++
}

func (x *idIndex) put(s uint64) {
	mask := len(x.slots) - 1
	i := int(s>>32) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = s
}

// resize rehashes into n slots (a power of two) from the stored hashes.
func (x *idIndex) resize(n int) {
	old := x.slots
	x.slots = make([]uint64, n)
	for _, s := range old {
		if s != 0 {
			x.put(s)
		}
	}
}

// setRow records that id now lives in row.
func (x *idIndex) setRow(id string, row int, idOf func(row int) string) {
	if i := x.find(id, idOf); i >= 0 {
		x.slots[i] = x.slots[i]&^(1<<32-1) | uint64(row+1)
	}
}

// remove unmaps id.
func (x *idIndex) remove(id string, idOf func(row int) string) {
	i := x.find(id, idOf)
	if i < 0 {
		return
	}
	// Backward shift: pull later slots of the probe run into the hole
	// unless that would put one before its home slot.
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		home := int(x.slots[j]>>32) & mask
		if (j-home)&mask >= (j-i)&mask {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
	if len(x.slots) > minIDSlots && 8*x.n < len(x.slots) {
		x.resize(len(x.slots) / 2)
	}
}
