package local

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
type rowStore[T float32 | int8] struct {
	dim    int
	n      int
	chunks [][]T
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
		// Only the first chunk starts small: a partition that filled one
		// is big, and the rest of a chunk is little next to it.
		rows := chunkRows
		if i == 0 {
			rows = 16
		}
		s.chunks = append(s.chunks, make([]T, 0, s.dim*rows))
	}
	last := len(s.chunks) - 1
	c := s.chunks[last]
	s.chunks[last] = append(c, make([]T, s.dim)...)
	s.n++
	return i
}

// truncate keeps the first n rows.
func (s *rowStore[T]) truncate(n int) {
	if n >= s.n {
		return
	}
	keep := (n + chunkMask) >> chunkShift
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
