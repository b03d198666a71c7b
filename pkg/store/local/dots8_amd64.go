package local

import "golang.org/x/sys/cpu"

// dotsInt8AVX2 is dotsInt8Generic in AVX2 for n rows of dim codes.
//
//go:noescape
func dotsInt8AVX2(q *int16, codes *int8, dim int, rows *int32, n int, out *int32)

// dotsInt8Kernel picks the fastest int8 kernel this CPU runs.
func dotsInt8Kernel() func(q []int16, codes []int8, rows []int32, out []int32) {
	if cpu.X86.HasAVX2 {
		return dotsInt8Fast
	}
	return dotsInt8Generic
}

// dotsInt8Fast checks the bounds the assembly cannot, then runs it.
func dotsInt8Fast(q []int16, codes []int8, rows []int32, out []int32) {
	if len(rows) == 0 || len(q) == 0 {
		clear(out[:len(rows)])
		return
	}
	out = out[:len(rows)]
	dim := len(q)
	for _, r := range rows {
		if r < 0 || (int(r)+1)*dim > len(codes) {
			panic("local: int8 row index out of range") // a bug in the caller, never input
		}
	}
	dotsInt8AVX2(&q[0], &codes[0], dim, &rows[0], len(rows), &out[0])
}

// dotsInt8ChunkedAVX2 is dotsInt8ChunkedGeneric in AVX2 for n rows of dim
// codes; chunks points at the first of the rowStore's chunk slices.
//
//go:noescape
func dotsInt8ChunkedAVX2(q *int16, chunks *[]int8, dim int, rows *int32, n int, out *int32)

// dotsInt8ChunkedKernel picks the fastest in-place int8 kernel this CPU
// runs.
func dotsInt8ChunkedKernel() func(q []int16, chunks [][]int8, rows []int32, out []int32) {
	if cpu.X86.HasAVX2 {
		return dotsInt8ChunkedFast
	}
	return dotsInt8ChunkedGeneric
}

// dotsInt8ChunkedFast checks the bounds the assembly cannot, then runs it.
func dotsInt8ChunkedFast(q []int16, chunks [][]int8, rows []int32, out []int32) {
	if len(rows) == 0 || len(q) == 0 {
		clear(out[:len(rows)])
		return
	}
	out = out[:len(rows)]
	dim := len(q)
	for _, r := range rows {
		if r < 0 || int(r>>chunkShift) >= len(chunks) || int(r&chunkMask+1)*dim > len(chunks[r>>chunkShift]) {
			panic("local: int8 row index out of range") // a bug in the caller, never input
		}
	}
	dotsInt8ChunkedAVX2(&q[0], &chunks[0], dim, &rows[0], len(rows), &out[0])
}
