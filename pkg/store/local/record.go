package local

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Payload kinds. An upsert, payload or delete frame is one whole batch, so a
// batch is replayed entirely or not at all.
const (
	opUpsertJSON byte = 1 // upserts written before the binary encoding; still read
	opDelete     byte = 2
	opEnd        byte = 3 // a snapshot's last frame, carrying its record count
	opUpsert     byte = 4
	// opPayload is an UpdatePayload batch: each record is the memory
	// without a vector, which keeps the one stored. Only logs hold it
	// (snapshots write whole records); a build older than it refuses to
	// open a log that does, rather than skip acknowledged writes.
	opPayload byte = 5
	// opUpsertChunks is an upsert batch some of whose memories have chunk
	// vectors: each record is an upsert record followed by the chunk part
	// (see appendChunks). Batches without chunk vectors are still written
	// as opUpsert, so that logs and snapshots without long memories stay
	// readable by builds older than it; those refuse to open the others.
	opUpsertChunks byte = 6
)

// An upsert record is the memory without its vector (binary, see
// recordbin.go; JSON in opUpsertJSON payloads) behind a uvarint length, then
// the vector as a uvarint length and raw little-endian float32s (compact
// and exact). Either kind decodes to an op of kind opUpsert.

// A chunk part is the number of chunk vectors as a uvarint, then each
// vector's raw little-endian float32s, as wide as the record's vector.

// A payload record is the memory's binary encoding behind a uvarint length,
// as in an upsert record, with no vector part after it.

// op is a decoded payload.
type op struct {
	kind   byte
	mems   []memory.Memory // opUpsert: vectors (and chunk vectors) set; opPayload: no vectors
	sizes  []int           // opUpsert, opPayload: encoded bytes per record
	tenant string          // opDelete
	ids    []string        // opDelete
	count  uint64          // opEnd
}

// appendRecord appends one upsert record for m with vector vec.
func appendRecord(dst []byte, m *memory.Memory, vec []float32) ([]byte, error) {
	dst, err := appendMemoryRecord(dst, m)
	if err != nil {
		return dst, err
	}
	return appendVector(dst, vec), nil
}

// appendVector appends the vector part of an upsert record.
func appendVector(dst []byte, vec []float32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(vec)))
	for _, f := range vec {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	return dst
}

// encodeSnapBatch appends an upsert batch of already encoded memories to
// p: the same bytes encodeUpsert writes for them.
func encodeSnapBatch(p []byte, recs []snapRec) []byte {
	chunked := slices.ContainsFunc(recs, func(r snapRec) bool { return len(r.chunks) > 0 })
	if chunked {
		p = append(p, opUpsertChunks)
	} else {
		p = append(p, opUpsert)
	}
	p = binary.AppendUvarint(p, uint64(len(recs)))
	for _, r := range recs {
		p = binary.AppendUvarint(p, uint64(len(r.rec)))
		p = appendVector(append(p, r.rec...), r.vec)
		if chunked {
			p = appendChunks(p, r.chunks)
		}
	}
	return p
}

// vectorPartLen is how many bytes appendRecord spends on a vector of dim
// components.
func vectorPartLen(dim int) int {
	var lb [binary.MaxVarintLen64]byte
	return binary.PutUvarint(lb[:], uint64(dim)) + 4*dim
}

// appendChunks appends the chunk part of a record: len(chunks) vectors,
// each as wide as the record's vector.
func appendChunks(dst []byte, chunks [][]float32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(chunks)))
	for _, c := range chunks {
		for _, f := range c {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
		}
	}
	return dst
}

// chunkPartLen is how many bytes appendChunks spends on n vectors of dim
// components; 0 for a record of a batch without chunk vectors.
func chunkPartLen(n, dim int) int {
	if n == 0 {
		return 0
	}
	var lb [binary.MaxVarintLen64]byte
	return binary.PutUvarint(lb[:], uint64(n)) + 4*n*dim
}

// hasChunks reports whether any memory of the batch has chunk vectors.
func hasChunks(mems []memory.Memory) bool {
	for i := range mems {
		if len(mems[i].ChunkVectors) > 0 {
			return true
		}
	}
	return false
}

// appendMemoryRecord appends m's binary encoding behind its uvarint length.
func appendMemoryRecord(dst []byte, m *memory.Memory) ([]byte, error) {
	// The length goes in front of the memory, which is encoded in place
	// behind room for the largest length a frame allows, then moved up.
	const room = 5
	at := len(dst)
	dst, err := appendMemoryBinary(append(dst, make([]byte, room)...), m)
	if err != nil {
		return dst[:at], err
	}
	n := len(dst) - at - room
	var lb [binary.MaxVarintLen64]byte
	ln := binary.PutUvarint(lb[:], uint64(n))
	copy(dst[at:], lb[:ln])
	copy(dst[at+ln:], dst[at+room:])
	return dst[:at+ln+n], nil
}

// encodeUpsert appends a batch whose vectors are already normalised to p,
// and returns the encoded size of each record for live-data accounting.
func encodeUpsert(p []byte, mems []memory.Memory) ([]byte, []int, error) {
	chunked := hasChunks(mems)
	if chunked {
		p = append(p, opUpsertChunks)
	} else {
		p = append(p, opUpsert)
	}
	p = binary.AppendUvarint(p, uint64(len(mems)))
	sizes := make([]int, len(mems))
	for i := range mems {
		before := len(p)
		var err error
		if p, err = appendRecord(p, &mems[i], mems[i].Vector); err != nil {
			return nil, nil, err
		}
		if chunked {
			p = appendChunks(p, mems[i].ChunkVectors)
		}
		sizes[i] = len(p) - before
	}
	return p, sizes, nil
}

// encodePayload appends an UpdatePayload batch (vectors ignored) to p, and
// returns the encoded size of each record.
func encodePayload(p []byte, mems []memory.Memory) ([]byte, []int, error) {
	p = append(p, opPayload)
	p = binary.AppendUvarint(p, uint64(len(mems)))
	sizes := make([]int, len(mems))
	for i := range mems {
		before := len(p)
		var err error
		if p, err = appendMemoryRecord(p, &mems[i]); err != nil {
			return nil, nil, err
		}
		sizes[i] = len(p) - before
	}
	return p, sizes, nil
}

func encodeDelete(p []byte, tenant string, ids []string) []byte {
	p = append(p, opDelete)
	p = appendString(p, tenant)
	p = binary.AppendUvarint(p, uint64(len(ids)))
	for _, id := range ids {
		p = appendString(p, id)
	}
	return p
}

func encodeEnd(p []byte, count uint64) []byte {
	return binary.AppendUvarint(append(p, opEnd), count)
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var errShort = errors.New("payload ends early")

// cursor reads a payload; the first error sticks and later reads return zero
// values, so decoding never indexes past the end.
type cursor struct {
	b   []byte
	err error
}

func (c *cursor) uvarint() uint64 {
	if c.err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.b)
	if n <= 0 {
		c.err = errShort
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *cursor) next(n uint64) []byte {
	if c.err != nil {
		return nil
	}
	if n > uint64(len(c.b)) {
		c.err = errShort
		return nil
	}
	v := c.b[:n]
	c.b = c.b[n:]
	return v
}

// count reads an element count, bounded by the bytes left (each element
// takes at least min bytes), so that a bad count can neither force a huge
// allocation nor overflow a size computed from it.
func (c *cursor) count(min int) int {
	n := c.uvarint()
	if c.err == nil && n > uint64(len(c.b)/min) {
		c.err = errShort
		return 0
	}
	return int(n)
}

func decodeOp(p []byte) (op, error) {
	if len(p) == 0 {
		return op{}, errShort
	}
	c := &cursor{b: p[1:]}
	o := op{kind: p[0]}
	switch o.kind {
	case opUpsert, opUpsertJSON, opUpsertChunks:
		decode := decodeMemoryBinary
		if o.kind == opUpsertJSON {
			decode = decodeMemoryJSON
		}
		chunked := o.kind == opUpsertChunks
		o.kind = opUpsert
		n := c.count(2)
		o.mems = make([]memory.Memory, 0, n)
		o.sizes = make([]int, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			before := len(c.b)
			js := c.next(c.uvarint())
			dim := uint64(c.count(4))
			raw := c.next(dim * 4)
			if c.err != nil {
				break
			}
			m, err := decode(js)
			if err != nil {
				return op{}, fmt.Errorf("decode memory %d: %w", i, err)
			}
			if dim > 0 {
				m.Vector = make([]float32, dim)
				for j := range m.Vector {
					m.Vector[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[j*4:]))
				}
			}
			if chunked {
				if m.ChunkVectors, err = c.chunks(int(dim)); err != nil {
					return op{}, fmt.Errorf("decode chunk vectors of memory %d: %w", i, err)
				}
			}
			o.mems = append(o.mems, m)
			o.sizes = append(o.sizes, before-len(c.b))
		}
	case opPayload:
		n := c.count(2)
		o.mems = make([]memory.Memory, 0, n)
		o.sizes = make([]int, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			before := len(c.b)
			bin := c.next(c.uvarint())
			if c.err != nil {
				break
			}
			m, err := decodeMemoryBinary(bin)
			if err != nil {
				return op{}, fmt.Errorf("decode memory %d: %w", i, err)
			}
			o.mems = append(o.mems, m)
			o.sizes = append(o.sizes, before-len(c.b))
		}
	case opDelete:
		o.tenant = string(c.next(c.uvarint()))
		n := c.count(1)
		o.ids = make([]string, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			o.ids = append(o.ids, string(c.next(c.uvarint())))
		}
	case opEnd:
		o.count = c.uvarint()
	default:
		return op{}, fmt.Errorf("unknown payload kind %d", o.kind)
	}
	if c.err != nil {
		return op{}, c.err
	}
	if len(c.b) != 0 {
		return op{}, fmt.Errorf("%d stray bytes after payload", len(c.b))
	}
	return o, nil
}

// chunks reads a chunk part of vectors of dim components.
func (c *cursor) chunks(dim int) ([][]float32, error) {
	n := c.uvarint()
	if c.err != nil {
		return nil, c.err
	}
	if n == 0 {
		return nil, nil
	}
	if dim == 0 || n > uint64(len(c.b)/(4*dim)) {
		return nil, fmt.Errorf("%d chunk vectors of %d dims do not fit: %w", n, dim, errShort)
	}
	raw := c.next(n * uint64(dim) * 4)
	flat := make([]float32, int(n)*dim)
	for j := range flat {
		flat[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[j*4:]))
	}
	out := make([][]float32, n)
	for k := range out {
		out[k] = flat[k*dim : (k+1)*dim : (k+1)*dim]
	}
	return out, nil
}

func decodeMemoryJSON(p []byte) (memory.Memory, error) {
	var m memory.Memory
	err := json.Unmarshal(p, &m)
	return m, err
}
