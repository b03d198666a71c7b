package local

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// arenaModel drives a recArena the way a partition does (rows appended,
// replaced, swap-removed) next to a plain slice of what each row holds.
type arenaModel struct {
	a    recArena
	locs []recLoc
	want [][]byte
}

func (m *arenaModel) add(rec []byte) {
	m.locs = append(m.locs, m.a.add(len(m.locs), rec))
	m.want = append(m.want, bytes.Clone(rec))
	m.a.tidy(m.locs)
}

func (m *arenaModel) replace(row int, rec []byte) {
	m.locs[row] = m.a.replace(m.locs[row], row, rec)
	m.want[row] = bytes.Clone(rec)
	m.a.tidy(m.locs)
}

func (m *arenaModel) remove(row int) {
	m.a.drop(m.locs[row])
	last := len(m.locs) - 1
	if row != last {
		m.locs[row], m.want[row] = m.locs[last], m.want[last]
		m.a.setRow(m.locs[row], row)
	}
	m.locs, m.want = m.locs[:last], m.want[:last]
	m.a.tidy(m.locs)
}

// check compares every row with the model and the arena's accounting with
// a walk of its blocks.
func (m *arenaModel) check(t *testing.T) {
	t.Helper()
	live := 0
	for row, rec := range m.want {
		if got := m.a.get(m.locs[row]); !bytes.Equal(got, rec) {
			t.Fatalf("row %d holds %q, want %q", row, got, rec)
		}
		live += entryHeader + len(rec)
	}
	if m.a.live != live {
		t.Fatalf("arena counts %d live bytes, rows hold %d", m.a.live, live)
	}
	used, free := 0, 0
	for bi, b := range m.a.blocks {
		if b.buf == nil {
			free++
			continue
		}
		used += len(b.buf)
		blockLive, off := 0, 0
		for off < len(b.buf) {
			row := int(binary.LittleEndian.Uint32(b.buf[off:]))
			n := entryHeader + int(binary.LittleEndian.Uint32(b.buf[off+4:]))
			if row < len(m.locs) && m.locs[row] == (recLoc{uint32(bi), uint32(off)}) {
				blockLive += n
			}
			off += n
		}
		if off != len(b.buf) || blockLive != b.live {
			t.Fatalf("block %d: walk ends at %d of %d, finds %d live bytes, block says %d", bi, off, len(b.buf), blockLive, b.live)
		}
		if b.live == 0 && uint32(bi) != m.a.tail {
			t.Fatalf("block %d holds nothing live but is kept", bi)
		}
	}
	if m.a.used != used || free != len(m.a.free) {
		t.Fatalf("arena counts %d used bytes and %d free slots, blocks hold %d and %d", m.a.used, len(m.a.free), used, free)
	}
}

func randRecord(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestArenaAgainstModel(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 14))
		var m arenaModel
		size := func() int {
			switch r.IntN(50) {
			case 0:
				return largeEntry + r.IntN(1000) // a block of its own
			case 1:
				return 0
			default:
				return r.IntN(600)
			}
		}
		for step := range 6000 {
			switch op := r.IntN(10); {
			case len(m.locs) == 0 || op < 4 && len(m.locs) < 2000:
				m.add(randRecord(r, size()))
			case op < 6: // same length: rewritten in place
				row := r.IntN(len(m.locs))
				before := m.locs[row]
				m.replace(row, randRecord(r, len(m.want[row])))
				if m.locs[row] != before {
					t.Fatalf("seed %d step %d: a record of the same length moved", seed, step)
				}
			case op < 8:
				m.replace(r.IntN(len(m.locs)), randRecord(r, size()))
			default:
				m.remove(r.IntN(len(m.locs)))
			}
			if step%97 == 0 {
				m.check(t)
			}
		}
		m.check(t)
		// Garbage stays bounded: a quarter of what the blocks hold, give
		// or take the entries written since the last move.
		if g := m.a.garbage(); g > m.a.used/4+2*maxBlock {
			t.Fatalf("seed %d: %d bytes of garbage in %d used", seed, g, m.a.used)
		}
		for len(m.locs) > 0 {
			m.remove(r.IntN(len(m.locs)))
		}
		m.check(t)
		if m.a.used != 0 || m.a.live != 0 {
			t.Fatalf("seed %d: empty arena still uses %d bytes (%d live)", seed, m.a.used, m.a.live)
		}
	}
}

// TestArenaReusesFreedSpace checks that churn does not grow the arena: a
// fixed set of rows rewritten many times with new lengths stays within a
// small multiple of its live size.
func TestArenaReusesFreedSpace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var m arenaModel
	for range 1000 {
		m.add(randRecord(r, 100+r.IntN(200)))
	}
	for range 50_000 {
		m.replace(r.IntN(len(m.locs)), randRecord(r, 100+r.IntN(200)))
	}
	m.check(t)
	held := 0
	for _, b := range m.a.blocks {
		held += cap(b.buf)
	}
	if held > 2*m.a.live {
		t.Fatalf("blocks hold %d bytes for %d live", held, m.a.live)
	}
}
