package local

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// int8Case draws a query of dim int16 codes, rows of int8 codes (including
// the extremes) and a shuffled row list with repeats.
func int8Case(r *rand.Rand, dim, rows int) ([]int16, []int8, []int32) {
	q := make([]int16, dim)
	for i := range q {
		q[i] = int16(r.IntN(1<<16) - 1<<15)
	}
	codes := make([]int8, dim*rows)
	for i := range codes {
		codes[i] = int8(r.IntN(256) - 128)
	}
	list := make([]int32, rows+rows/2)
	for i := range list {
		list[i] = int32(r.IntN(max(1, rows)))
	}
	if rows == 0 {
		list = nil
	}
	return q, codes, list
}

func checkInt8Kernel(t *testing.T, q []int16, codes []int8, rows []int32) {
	t.Helper()
	want := make([]int32, len(rows))
	got := make([]int32, len(rows))
	dotsInt8Generic(q, codes, rows, want)
	dotsInt8Kernel()(q, codes, rows, got)
	if !slices.Equal(got, want) {
		t.Fatalf("dim %d, %d rows: kernel %v, portable %v", len(q), len(rows), got, want)
	}
	// And the portable kernel against the definition.
	for j, r := range rows {
		var s int32
		for i := range q {
			s += int32(q[i]) * int32(codes[int(r)*len(q)+i])
		}
		if want[j] != s {
			t.Fatalf("dim %d row %d: portable %d, definition %d", len(q), r, want[j], s)
		}
	}
}

// TestDotsInt8Kernel runs the kernel in use against the portable one at
// every width around the 16- and 32-code steps and at common model widths.
func TestDotsInt8Kernel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dims := []int{384, 768, 1024, 1536}
	for d := 1; d <= 70; d++ {
		dims = append(dims, d)
	}
	for _, dim := range dims {
		q, codes, rows := int8Case(r, dim, 7)
		checkInt8Kernel(t, q, codes, rows)
	}
	t.Run("extremes", func(t *testing.T) {
		for _, qv := range []int16{-32768, 32767} {
			for _, cv := range []int8{-128, 127} {
				q := slices.Repeat([]int16{qv}, 100)
				codes := slices.Repeat([]int8{cv}, 300)
				checkInt8Kernel(t, q, codes, []int32{2, 0, 1})
			}
		}
	})
}

func FuzzDotsInt8Kernel(f *testing.F) {
	f.Add(uint64(1), uint8(33), uint8(5))
	f.Add(uint64(7), uint8(0), uint8(0))
	f.Add(uint64(9), uint8(255), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, dim, rows uint8) {
		q, codes, list := int8Case(rand.New(rand.NewPCG(seed, 3)), int(dim)+1, int(rows))
		checkInt8Kernel(t, q, codes, list)
	})
}

func TestQuantizeRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float32
	}{
		{"zeros", []float32{0, 0, 0}},
		{"empty", nil},
		{"unit", []float32{0.6, -0.8, 0}},
		{"seeded", seededVector(3, 384)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := slices.Repeat([]int8{9}, max(3, len(tc.v)))[:max(3, len(tc.v))]
			scale := quantizeRow(dst, tc.v)
			var peak float32
			for _, x := range tc.v {
				peak = max(peak, x, -x)
			}
			if peak == 0 {
				if scale != 0 || slices.ContainsFunc(dst, func(c int8) bool { return c != 0 }) {
					t.Fatalf("no vector: scale %v, codes %v", scale, dst)
				}
				return
			}
			for i, x := range tc.v {
				if d := float32(dst[i])*scale - x; d > scale/2*1.0001 || d < -scale/2*1.0001 {
					t.Errorf("component %d: %v decodes to %v, off by more than half a step %v", i, x, float32(dst[i])*scale, scale)
				}
			}
		})
	}
}

func BenchmarkDotsInt8_384(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	q, codes, _ := int8Case(r, 384, 4096)
	rows := make([]int32, approxBlock)
	for i := range rows {
		rows[i] = int32(i * 13 % 4096)
	}
	out := make([]int32, len(rows))
	for _, k := range []struct {
		name string
		fn   func([]int16, []int8, []int32, []int32)
	}{{"kernel", dotsInt8Kernel()}, {"generic", dotsInt8Generic}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.fn(q, codes, rows, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
		})
	}
}

// chunkedCase lays rows of dim codes out as a rowStore does (chunkRows
// rows a chunk, the last one partial), each chunk starting off bytes into
// its allocation so that rows sit at every alignment, and draws a
// shuffled row list over all chunks with repeats.
func chunkedCase(r *rand.Rand, dim, rows, off int) ([]int16, [][]int8, []int32) {
	q, codes, _ := int8Case(r, dim, rows)
	var chunks [][]int8
	for lo := 0; lo < rows; lo += chunkRows {
		n := min(chunkRows, rows-lo)
		buf := make([]int8, off+n*dim)
		copy(buf[off:], codes[lo*dim:(lo+n)*dim])
		chunks = append(chunks, buf[off:])
	}
	list := make([]int32, 3*chunkRows)
	for i := range list {
		list[i] = int32(r.IntN(rows))
	}
	return q, chunks, list
}

// TestDotsInt8ChunkedKernel runs the in-place kernel in use against the
// portable one, and the portable one against the contiguous kernel, at
// odd and common widths, every alignment and row lists of every length
// around the prefetch distance.
func TestDotsInt8ChunkedKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dims := []int{1, 7, 15, 16, 17, 31, 33, 63, 65, 383, 384, 385, 768}
	for _, dim := range dims {
		for off := range 4 {
			q, chunks, list := chunkedCase(r, dim, 2*chunkRows+37, off*17%64)
			var flat []int8
			for _, c := range chunks {
				flat = append(flat, c...)
			}
			for _, n := range []int{0, 1, 4, 5, 6, 9, len(list)} {
				rows := list[:n]
				want := make([]int32, n)
				got := make([]int32, n)
				flatWant := make([]int32, n)
				dotsInt8ChunkedGeneric(q, chunks, rows, want)
				dotsInt8ChunkedKernel()(q, chunks, rows, got)
				dotsInt8Generic(q, flat, rows, flatWant)
				if !slices.Equal(got, want) || !slices.Equal(want, flatWant) {
					t.Fatalf("dim %d, offset %d, %d rows: kernel %v, portable %v, contiguous %v", dim, off, n, got, want, flatWant)
				}
			}
		}
	}
	t.Run("extremes", func(t *testing.T) {
		for _, qv := range []int16{-32768, 32767} {
			for _, cv := range []int8{-128, 127} {
				q := slices.Repeat([]int16{qv}, 100)
				chunks := [][]int8{slices.Repeat([]int8{cv}, 100*chunkRows), slices.Repeat([]int8{cv}, 300)}
				rows := []int32{chunkRows + 2, 0, chunkRows - 1, chunkRows, 5, 6, 7}
				want := make([]int32, len(rows))
				got := make([]int32, len(rows))
				dotsInt8ChunkedGeneric(q, chunks, rows, want)
				dotsInt8ChunkedKernel()(q, chunks, rows, got)
				if !slices.Equal(got, want) || want[0] != int32(qv)*int32(cv)*100 {
					t.Fatalf("query %d, codes %d: kernel %v, portable %v", qv, cv, got, want)
				}
			}
		}
	})
}

func FuzzDotsInt8ChunkedKernel(f *testing.F) {
	f.Add(uint64(1), uint16(33), uint8(5))
	f.Add(uint64(9), uint16(384), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, dim uint16, off uint8) {
		r := rand.New(rand.NewPCG(seed, 5))
		q, chunks, list := chunkedCase(r, int(dim%800)+1, chunkRows+int(seed%chunkRows)+1, int(off%64))
		want := make([]int32, len(list))
		got := make([]int32, len(list))
		dotsInt8ChunkedGeneric(q, chunks, list, want)
		dotsInt8ChunkedKernel()(q, chunks, list, got)
		if !slices.Equal(got, want) {
			t.Fatalf("dim %d: kernel and portable differ", len(q))
		}
	})
}

// BenchmarkDotsInt8Scattered scores blocks of rows scattered over a slab
// far bigger than the caches, as an IVF probe does: copied together
// first and scored by the contiguous kernel (how probing worked before),
// or scored in place by the chunked kernel; and, for comparison, blocks
// of consecutive rows (what list-major codes would read).
func BenchmarkDotsInt8Scattered(b *testing.B) {
	const dim, rows = 384, 512 * chunkRows // 192 MiB of codes
	r := rand.New(rand.NewPCG(7, 8))
	q := make([]int16, dim)
	for i := range q {
		q[i] = int16(r.IntN(1<<16) - 1<<15)
	}
	chunks := make([][]int8, rows/chunkRows)
	for c := range chunks {
		chunks[c] = make([]int8, chunkRows*dim)
		for i := range chunks[c] {
			chunks[c][i] = int8(i * 7)
		}
	}
	list := make([]int32, 1<<20)
	for i := range list {
		list[i] = int32(r.IntN(rows))
	}
	out := make([]int32, approxBlock)
	rel := make([]int32, approxBlock)
	for i := range rel {
		rel[i] = int32(i)
	}
	block := make([]int8, approxBlock*dim)
	b.Run("copy", func(b *testing.B) {
		kernel, at := dotsInt8Kernel(), 0
		for b.Loop() {
			rs := list[at : at+approxBlock]
			at = (at + approxBlock) % len(list)
			for j, r := range rs {
				o := int(r&chunkMask) * dim
				copy(block[j*dim:(j+1)*dim], chunks[r>>chunkShift][o:o+dim])
			}
			kernel(q, block, rel, out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*approxBlock), "ns/row")
	})
	b.Run("in-place", func(b *testing.B) {
		kernel, at := dotsInt8ChunkedKernel(), 0
		for b.Loop() {
			rs := list[at : at+approxBlock]
			at = (at + approxBlock) % len(list)
			kernel(q, chunks, rs, out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*approxBlock), "ns/row")
	})
	b.Run("consecutive", func(b *testing.B) {
		kernel, c := dotsInt8Kernel(), 0
		for b.Loop() {
			kernel(q, chunks[c/(chunkRows/approxBlock)][(c%(chunkRows/approxBlock))*approxBlock*dim:], rel, out)
			c = (c + 1) % (rows / approxBlock)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*approxBlock), "ns/row")
	})
}
