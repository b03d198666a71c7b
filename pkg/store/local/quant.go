package local

import "math"

// roundMagic is 1.5·2²³: a float32 at least this big has no fraction bits.
const roundMagic float32 = 12582912

// quantSlab is an int8 copy of a partition's slab for approximate search:
// row i is round(v/scale[i]) with scale[i] = max|v|/127, so each row uses
// the whole int8 range whatever its own spread. It is derived state, kept
// in step with the slab by upsert and remove and rebuilt on load, never
// logged.
type quantSlab struct {
	codes rowStore[int8]
	scale []float32 // 0 for a row without a vector
}

// newQuantSlab quantises every row of vecs.
func newQuantSlab(vecs *rowStore[float32]) *quantSlab {
	q := &quantSlab{codes: newRowStore[int8](vecs.dim), scale: make([]float32, 0, vecs.n+vecs.n/4)}
	for i := range vecs.n {
		q.set(i, vecs.row(i))
	}
	return q
}

// set quantises vec (zeros for none) into row i, appending when i is the
// row count.
func (q *quantSlab) set(i int, vec []float32) {
	if i == len(q.scale) {
		q.codes.push()
		q.scale = append(q.scale, 0)
	}
	q.scale[i] = quantizeRow(q.codes.row(i), vec)
}

// move copies row src over row dst.
func (q *quantSlab) move(dst, src int) {
	copy(q.codes.row(dst), q.codes.row(src))
	q.scale[dst] = q.scale[src]
}

// truncate keeps the first n rows.
func (q *quantSlab) truncate(n int) {
	q.codes.truncate(n)
	q.scale = q.scale[:n]
}

// quantizeRow writes v's codes into dst (len(v) == len(dst), or v empty for
// zeros) and returns the value of one code unit. Float32 arithmetic only:
// it runs for every row a reopen loads.
func quantizeRow(dst []int8, v []float32) float32 {
	// Plain comparisons, not the max builtin, whose NaN and signed-zero
	// rules cost 4× the loop (vectors are finite: store.Normalized).
	var hi, lo float32
	for _, x := range v {
		if x > hi {
			hi = x
		}
		if x < lo {
			lo = x
		}
	}
	peak := max(hi, -lo)
	if peak == 0 {
		clear(dst)
		return 0
	}
	inv := 127 / peak
	dst = dst[:len(v)]
	for j, x := range v {
		// Adding and taking away 1.5·2²³ rounds |x·inv| <= 127 to the
		// nearest integer in float32 without a branch on its sign.
		dst[j] = int8((x*inv + roundMagic) - roundMagic)
	}
	return peak / 127
}

// quantizeQuery returns the query as int16 codes, as fine as the int32
// accumulator allows for this width: dim·127·qmax stays below 2³¹, so no
// sum can overflow.
func quantizeQuery(v []float32) []int16 {
	qmax := float32(min(math.MaxInt16, math.MaxInt32/(max(1, len(v))*127)))
	out := make([]int16, len(v))
	var peak float32
	for _, x := range v {
		peak = max(peak, float32(math.Abs(float64(x))))
	}
	if peak == 0 {
		return out
	}
	inv := qmax / peak
	for j, x := range v {
		out[j] = int16(math.Round(float64(x * inv)))
	}
	return out
}

// dotsInt8Generic is the portable int8 kernel: out[j] is the dot product
// of q with row rows[j] of codes (rows of len(q)).
func dotsInt8Generic(q []int16, codes []int8, rows []int32, out []int32) {
	dim := len(q)
	for j, r := range rows {
		out[j] = dotInt8(q, codes[int(r)*dim:(int(r)+1)*dim])
	}
}

// dotsInt8ChunkedGeneric is the portable in-place int8 kernel: out[j] is
// the dot product of q with row rows[j] of a rowStore's chunks (row r is
// row r&chunkMask of chunk r>>chunkShift, rows of len(q) codes). Scoring
// a scattered list's rows where they lie spares copying them together.
func dotsInt8ChunkedGeneric(q []int16, chunks [][]int8, rows []int32, out []int32) {
	dim := len(q)
	for j, r := range rows {
		o := int(r&chunkMask) * dim
		out[j] = dotInt8(q, chunks[r>>chunkShift][o:o+dim])
	}
}

// dotInt8 is the dot product of q and row (len(row) >= len(q)), in four
// accumulators.
func dotInt8(q []int16, row []int8) int32 {
	dim := len(q)
	row = row[:dim]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= dim; i += 4 {
		s0 += int32(q[i]) * int32(row[i])
		s1 += int32(q[i+1]) * int32(row[i+1])
		s2 += int32(q[i+2]) * int32(row[i+2])
		s3 += int32(q[i+3]) * int32(row[i+3])
	}
	for ; i < dim; i++ {
		s0 += int32(q[i]) * int32(row[i])
	}
	return s0 + s1 + s2 + s3
}
