package local

import "unsafe"

// chunkShift sets how many rows a full chunk of a rowStore holds.
const (
	chunkShift = 10
	chunkRows  = 1 << chunkShift
	chunkMask  = chunkRows - 1
)

// rowStore holds rows of dim values in chunks of chunkRows rows, so that
// growing a big partition never copies what it already holds (a single
// slice grown by append copied the whole slab again and again, which was
// most of the time a reopen took). Only the first chunk grows by append,
// so a small partition holds no more than a small slice. Row i of chunk c is
// row c<<chunkShift + i.
//
// With a file, a store that outgrows its first chunk keeps its full-size
// chunks (the first one moved there too) in the file's mappings instead of
// the heap, each on the heap still when its mapping fails.
type rowStore[T float32 | int8] struct {
	dim    int
	n      int
	chunks [][]T
	file   *vecFile
}

func newRowStore[T float32 | int8](dim int) rowStore[T] { return rowStore[T]{dim: dim} }

// row returns row i, capped so that appending to it cannot reach row i+1.
func (s *rowStore[T]) row(i int) []T {
	c := s.chunks[i>>chunkShift]
	o := (i & chunkMask) * s.dim
	return c[o : o+s.dim : o+s.dim]
}

// chunk returns chunk c's rows.
func (s *rowStore[T]) chunk(c int) []T { return s.chunks[c] }

// push appends a row of zeros and returns its index.
func (s *rowStore[T]) push() int {
	i := s.n
	if i&chunkMask == 0 {
		s.chunks = append(s.chunks, s.newChunk(i>>chunkShift))
	}
	last := len(s.chunks) - 1
	c := s.chunks[last]
	s.chunks[last] = append(c, make([]T, s.dim)...)
	s.n++
	return i
}

// newChunk returns empty room for chunk c.
func (s *rowStore[T]) newChunk(c int) []T {
	if c == 0 {
		// Only the first chunk starts small: a partition that filled one
		// is big, and the rest of a chunk is little next to it.
		return make([]T, 0, s.dim*16)
	}
	if s.file != nil {
		if c == 1 && !s.file.mapped(0) {
			if m := s.mapChunk(0); m != nil {
				s.chunks[0] = append(m[:0], s.chunks[0]...)
			}
		}
		// Chunk c-1 is full: its rows are read again only by a search's
		// re-scoring, a rewrite or a compaction.
		s.file.dropPages(c - 1)
		if m := s.mapChunk(c); m != nil {
			return m[:0]
		}
	}
	return make([]T, 0, s.dim*chunkRows)
}

// mapChunk returns chunk c's room in the file, or nil: the mapping kept
// by truncate if there is one, else a new one.
func (s *rowStore[T]) mapChunk(c int) []T {
	b := s.file.chunkBytes(c)
	if b == nil {
		var zero T
		if b = s.file.mapChunk(c, chunkRows*s.dim*int(unsafe.Sizeof(zero))); b == nil {
			return nil
		}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), chunkRows*s.dim)
}

// dropPages takes the full mapped chunks out of the resident set (see
// vecFile.dropPages); the caller holds the partition's lock, read at least.
func (s *rowStore[T]) dropPages() {
	if s.file == nil {
		return
	}
	for c := range len(s.chunks) - 1 {
		s.file.dropPages(c)
	}
}

// release unmaps and removes the file, leaving the store empty. The
// caller holds the partition's write lock.
func (s *rowStore[T]) release() {
	if s.file != nil {
		s.file.release()
	}
	*s = rowStore[T]{dim: s.dim, file: s.file}
}

// truncate keeps the first n rows.
func (s *rowStore[T]) truncate(n int) {
	if n >= s.n {
		return
	}
	keep := (n + chunkMask) >> chunkShift
	if s.file != nil {
		// The chunk after the last one kept stays mapped for the next
		// push: rows deleted and added around a chunk boundary do not
		// map and unmap it each time. A first chunk starts on the heap.
		spare := keep
		if keep > 0 {
			spare++
		}
		for c := spare; c < len(s.file.maps); c++ {
			s.file.unmap(c)
		}
	}
	clear(s.chunks[keep:])
	s.chunks = s.chunks[:keep]
	if keep > 0 && n&chunkMask != 0 {
		s.chunks[keep-1] = s.chunks[keep-1][:(n&chunkMask)*s.dim]
	}
	s.n = n
}

// appendTo appends every row, in order, to dst.
func (s *rowStore[T]) appendTo(dst []T) []T {
	for _, c := range s.chunks {
		dst = append(dst, c...)
	}
	return dst
}
