package local

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// partition holds one tenant's memories. Row i's memory is encoded in the
// arena at recs[i] (arena.go); row i of vecs is its unit vector (zeros when
// it has none), so a search is one pass over a few large contiguous
// chunks; lex indexes the rows' text for BM25; cols hold what filters test.
// From approxMin rows on (0: never), quant holds an int8 copy of the slab
// for approximate search; from indexMin vectors on (0: never), ivf indexes
// it once trained in the background (ivf.go). Writers hold the store's
// write lock and mu; readers hold mu.RLock.
type partition struct {
	mu sync.RWMutex
	// sessions is the last session list (sessions.go), for the columns'
	// writes count and filter it was made at.
	sessions atomic.Pointer[sessionList]
	ids      idIndex  // id → row
	recs     []recLoc // each row's record in arena: the memory without its vectors
	arena    recArena
	sizes    []int32 // encoded bytes per log record (under maxFrameLen), for compaction accounting
	hasVec   []bool
	enc      []byte // writers' scratch for encoding a record
	// chunks[i] holds row i's chunk vectors back to back (dim each), nil
	// for a memory without; nlong counts the rows that have them. They
	// are few (long memories only) and scored exactly (see chunks.go).
	chunks    [][]float32
	nlong     int
	dim       int // 0 while no record has a vector
	nvec      int
	vecs      rowStore[float32]
	vecCache  *vecCache // where vecs maps its chunks once big (nil: heap only)
	lex       *lexIndex
	days      *lexIndex // the day index (dayindex.go)
	cols      columns
	quant     *quantSlab
	approxMin int // rows from which quant is kept
	// ivf is the ready index or nil; build is one being built in the
	// background (kept exact by writers for the rows it covers); training
	// is set while a training goroutine runs.
	ivf      *ivfIndex
	build    *ivfIndex
	training bool
	indexMin int
}

// newPartition returns an empty partition that keeps an int8 copy of its
// vectors from approxMin rows on and indexes them from indexMin vectors
// on (0: never; the index needs the int8 copy, so it starts no earlier
// than that).
func newPartition(approxMin, indexMin int) *partition {
	quantMin := approxMin
	if approxMin == 0 {
		indexMin = 0
	} else if indexMin > 0 && indexMin < approxMin {
		quantMin = indexMin
	}
	return &partition{ids: newIDIndex(), lex: newLexIndex(), days: newLexIndex(), cols: newColumns(),
		approxMin: quantMin, indexMin: indexMin}
}

// checkDim reports whether a vector of n dims fits, given dim, the width the
// batch so far has settled on (0 when unsettled).
func checkDim(tenant, id string, dim, n int) error {
	if n != 0 && dim != 0 && n != dim {
		return fmt.Errorf("memory %s: vector has %d dims but tenant %s stores %d-dim vectors: %w",
			id, n, tenant, dim, store.ErrDimension)
	}
	return nil
}

// upsert stores m (its Vector unit length or empty, lv its
// lexical.MemoryVector) and returns the change in live encoded bytes. The
// caller has checked the dimension. An error means m could not be encoded,
// and nothing changed.
func (p *partition) upsert(m memory.Memory, size int, lv lexical.SparseVector) (int, error) {
	vec := m.Vector
	cv := flatten(m.ChunkVectors)
	m.Vector, m.ChunkVectors = nil, nil
	rec, err := appendMemoryBinary(p.enc[:0], &m)
	if err != nil {
		return 0, err
	}
	p.enc = rec
	i, ok := p.row(m.ID)
	if ok {
		if err := p.redate(i, &m); err != nil {
			return 0, err
		}
		if err := p.reindex(i, &m, lv); err != nil {
			return 0, err
		}
	}
	if len(vec) > 0 && p.dim == 0 {
		p.dim = len(vec)
		p.vecs = newRowStore[float32](p.dim)
		p.vecs.file = p.vecCache.file()
		for range p.recs {
			p.vecs.push()
		}
	}
	delta := size
	// Rewritten with the vector it has (a re-tagged memory, a repeated
	// upsert): the slab and its int8 copy stay as they are.
	same := ok && p.hasVec[i] && sameBits(p.vecs.row(i), vec)
	if ok {
		delta -= int(p.sizes[i])
		p.recs[i], p.sizes[i] = p.arena.replace(p.recs[i], i, rec), int32(size)
		if p.hasVec[i] {
			p.nvec--
		}
	} else {
		i = len(p.recs)
		p.recs = append(p.recs, p.arena.add(i, rec))
		p.ids.add(m.ID, i)
		p.sizes = append(p.sizes, int32(size))
		p.hasVec = append(p.hasVec, false)
		p.chunks = append(p.chunks, nil)
		p.lex.add(i, lv)
		p.days.add(i, dayVector(&m))
		if p.dim > 0 {
			p.vecs.push()
		}
	}
	p.arena.tidy(p.recs)
	p.hasVec[i] = len(vec) > 0
	p.setChunks(i, cv)
	p.cols.set(i, &m)
	if same {
		p.nvec++
		return delta, nil
	}
	if p.dim > 0 {
		row := p.vecs.row(i)
		if len(vec) > 0 {
			copy(row, vec)
			p.nvec++
		} else {
			clear(row)
		}
	}
	p.dropDimIfEmpty()
	p.syncQuant(i, vec)
	p.syncIVF(i, vec)
	return delta, nil
}

// reindex replaces row i's terms in the text index with lv, m's, unless
// the stored record has the same text.
func (p *partition) reindex(i int, m *memory.Memory, lv lexical.SparseVector) error {
	if recSameText(p.record(i), m) {
		return nil
	}
	old, err := p.decode(i)
	if err != nil {
		return err
	}
	p.lex.replace(i, lexical.MemoryVector(old), lv)
	return nil
}

// sameBits reports whether a and b hold the same float32s bit for bit (so
// -0 differs from 0: what is stored is what a replay of the log rebuilds).
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// setPayload replaces record i with m, which keeps row i's vector (m's
// Vector is ignored), and returns the change in live encoded bytes; recSize
// is m's encoded record without the vector part. The caller has checked
// that m is indexed by the same text (lexical.SameText), so the text index
// and the vectors stay as they are; a record that differs anyway is
// re-indexed rather than left wrong. An error means m could not be
// encoded, and nothing changed.
func (p *partition) setPayload(i int, m memory.Memory, recSize int) (int, error) {
	m.Vector, m.ChunkVectors = nil, nil
	rec, err := appendMemoryBinary(p.enc[:0], &m)
	if err != nil {
		return 0, err
	}
	p.enc = rec
	if err := p.redate(i, &m); err != nil {
		return 0, err
	}
	if !recSameText(p.record(i), &m) {
		if err := p.reindex(i, &m, lexical.MemoryVector(m)); err != nil {
			return 0, err
		}
	}
	dim := 0
	if p.hasVec[i] {
		dim = p.dim
	}
	size := recSize + vectorPartLen(dim) + p.chunkPartLen(i)
	delta := size - int(p.sizes[i])
	p.cols.set(i, &m)
	p.recs[i], p.sizes[i] = p.arena.replace(p.recs[i], i, rec), int32(size)
	p.arena.tidy(p.recs)
	return delta, nil
}

// syncQuant keeps quant in step after row i took vector vec: it builds the
// int8 copy once the partition reaches approxMin rows and then updates it
// row by row.
func (p *partition) syncQuant(i int, vec []float32) {
	switch {
	case p.dim == 0:
		p.quant = nil
	case p.quant != nil:
		p.quant.set(i, vec)
	case p.approxMin > 0 && len(p.recs) >= p.approxMin:
		p.quant = newQuantSlab(&p.vecs)
		p.vecs.dropPages() // read them all
	}
}

// remove deletes id by moving the last record into its place, and returns
// the change in live encoded bytes. An error means the stored record could
// not be decoded, and nothing changed.
func (p *partition) remove(id string) (int, error) {
	i, ok := p.row(id)
	if !ok {
		return 0, nil
	}
	// Recomputed rather than kept: the same text gives the same vector, and
	// keeping every memory's terms would cost more than deletes do.
	old, err := p.decode(i)
	if err != nil {
		return 0, err
	}
	p.lex.remove(i, lexical.MemoryVector(old))
	p.days.remove(i, dayVector(&old))
	delta := -int(p.sizes[i])
	if p.hasVec[i] {
		p.nvec--
	}
	p.setChunks(i, nil)
	p.ids.remove(id, p.rowID) // while the record is there to compare with
	p.arena.drop(p.recs[i])
	last := len(p.recs) - 1
	if i != last {
		p.recs[i], p.sizes[i], p.hasVec[i], p.chunks[i] = p.recs[last], p.sizes[last], p.hasVec[last], p.chunks[last]
		p.arena.setRow(p.recs[i], i)
		p.ids.setRow(p.rowID(i), i, p.rowID) // row last still reads the record
		p.cols.move(i, last)
		if p.dim > 0 {
			copy(p.vecs.row(i), p.vecs.row(last))
		}
		if p.quant != nil {
			p.quant.move(i, last)
		}
	}
	p.removeIVF(i, last)
	p.chunks[last] = nil
	p.recs, p.sizes, p.hasVec, p.chunks = p.recs[:last], p.sizes[:last], p.hasVec[:last], p.chunks[:last]
	p.arena.tidy(p.recs)
	p.cols.truncate(last)
	if p.dim > 0 {
		p.vecs.truncate(last)
	}
	if p.quant != nil {
		p.quant.truncate(last)
	}
	p.dropDimIfEmpty()
	// Half the threshold, so that a partition near it does not rebuild the
	// copy over and over.
	if p.dim == 0 || len(p.recs) < p.approxMin/2 {
		p.quant = nil
		p.ivf, p.build = nil, nil
	}
	return delta, nil
}

// dropDimIfEmpty frees the width once no vector is left, so that the
// accepted width depends only on what is stored (the same after a restart).
func (p *partition) dropDimIfEmpty() {
	if p.nvec == 0 && p.dim != 0 {
		p.vecs.release()
		p.dim, p.vecs = 0, rowStore[float32]{}
	}
}

// vector returns a copy of row i's vector, or nil.
func (p *partition) vector(i int) []float32 {
	if !p.hasVec[i] {
		return nil
	}
	return slices.Clone(p.vecs.row(i))
}

// record returns row i's encoded memory. It aliases the arena: valid while
// the caller holds p.mu and does not change the partition.
func (p *partition) record(i int) []byte { return p.arena.get(p.recs[i]) }

// row returns the row holding id.
func (p *partition) row(id string) (int, bool) { return p.ids.get(id, p.rowID) }

// rowID returns row i's id as a view of the arena (see viewString): for
// comparisons under p.mu only.
func (p *partition) rowID(i int) string { return viewString(recID(p.record(i))) }

// decode returns row i's memory without its vectors, sharing nothing with
// the partition.
func (p *partition) decode(i int) (memory.Memory, error) {
	m, err := decodeMemoryBinary(p.record(i))
	if err != nil {
		return memory.Memory{}, fmt.Errorf("decode stored record of row %d: %w", i, err)
	}
	return m, nil
}

// memoryAt returns a deep copy of record i with its vector, safe to hand out.
func (p *partition) memoryAt(i int) (memory.Memory, error) {
	return p.memoryIn(i, nil)
}

// memoryIn is memoryAt with the vectors copied into sc (store.Scratch) when
// sc is not nil: a search's hits then allocate no vector of their own.
func (p *partition) memoryIn(i int, sc *store.Scratch) (memory.Memory, error) {
	m, err := p.decode(i)
	if err != nil {
		return m, err
	}
	if sc == nil {
		m.Vector = p.vector(i)
		m.ChunkVectors = p.chunkVectors(i, true)
		return m, nil
	}
	if p.hasVec[i] {
		m.Vector = sc.Vector(p.vecs.row(i))
	}
	if cv := p.chunkVectors(i, false); len(cv) > 0 {
		for k := range cv {
			cv[k] = sc.Vector(cv[k])
		}
		m.ChunkVectors = cv
	}
	return m, nil
}

// cloneMemory copies m so that neither side's later changes reach the other.
func cloneMemory(m memory.Memory) memory.Memory {
	m.Tags = slices.Clone(m.Tags)
	m.Scope = slices.Clone(m.Scope)
	m.SourceIDs = slices.Clone(m.SourceIDs)
	m.DerivedFrom = slices.Clone(m.DerivedFrom)
	m.Vector = slices.Clone(m.Vector)
	if m.InvalidAt != nil {
		t := *m.InvalidAt
		m.InvalidAt = &t
	}
	if m.ValidUntil != nil {
		t := *m.ValidUntil
		m.ValidUntil = &t
	}
	return m
}
