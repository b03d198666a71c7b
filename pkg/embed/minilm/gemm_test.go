package minilm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// packPanels packs w, an n×k row-major matrix (PyTorch's out×in layout),
// as safetensors.packed does while loading, so that gemm computes x·wᵀ.
func packPanels(w []float32, n, k int) []float32 {
	p := make([]float32, n*k)
	for j := 0; j < n; j++ {
		panel, col := j/panelWidth, j%panelWidth
		base := panel * k * panelWidth
		row := w[j*k : j*k+k]
		for i, v := range row {
			p[base+i*panelWidth+col] = v
		}
	}
	return p
}

// naiveProduct is C = A·Wᵀ in float64, with W n×k row-major.
func naiveProduct(m, n, k int, a []float32, lda int, w []float32) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a[i*lda+p]) * float64(w[j*k+p])
			}
			c[i*n+j] = s
		}
	}
	return c
}

func randomMatrix(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// halfWeights returns n random fp16 values of magnitude 2⁻⁶..2⁵ and
// their float32 values.
func halfWeights(r *rand.Rand, n int) ([]uint16, []float32) {
	h, f := make([]uint16, n), make([]float32, n)
	for i := range h {
		h[i] = uint16(r.IntN(2))<<15 | uint16(9+r.IntN(12))<<10 | uint16(r.IntN(1024))
		f[i] = halfToFloat(h[i])
	}
	return h, f
}

// intWeights returns n random integer weights in [-weightMax, weightMax]
// and their float32 values.
func intWeights(r *rand.Rand, n int) ([]int16, []float32) {
	q, f := make([]int16, n), make([]float32, n)
	for i := range q {
		q[i] = int16(r.IntN(2*weightMax+1) - weightMax)
		f[i] = float32(q[i])
	}
	return q, f
}

// int16Activations returns n random integer activations in [-actMax,
// actMax] and their float32 values.
func int16Activations(r *rand.Rand, n int) ([]int16, []float32) {
	q, f := make([]int16, n), make([]float32, n)
	for i := range q {
		q[i] = int16(r.IntN(2*actMax+1) - actMax)
		f[i] = float32(q[i])
	}
	return q, f
}

// packPairs packs w (n×k, k even) into panels in pair layout, as
// quantizeColumns does.
func packPairs(w []int16, n, k int) []int16 {
	p := make([]int16, n*k)
	for j := 0; j < n; j++ {
		base := (j / panelWidth) * k * panelWidth
		for kk, v := range w[j*k : j*k+k] {
			p[base+pairIndex(kk, j%panelWidth)] = v
		}
	}
	return p
}

// packAs packs w (n×k) into panels like packPanels, for any format.
func packAs[W weightElem](w []W, n, k int) []W {
	p := make([]W, n*k)
	for j := 0; j < n; j++ {
		base := (j/panelWidth)*k*panelWidth + j%panelWidth
		for i, v := range w[j*k : j*k+k] {
			p[base+i*panelWidth] = v
		}
	}
	return p
}

// checkGEMM runs gemm with kern on packed B and compares with want
// (m×n, from naiveProduct); C is wider than n and only n columns may be
// written.
func checkGEMM[A activationElem, W weightElem](t *testing.T, kern tileKernels[A, W], m, n, k int, a []A, lda int, packed []W, want []float64) {
	t.Helper()
	const ldcPad = 5
	ldc := n + ldcPad
	c := make([]float32, m*ldc)
	for i := range c {
		c[i] = float32(math.NaN()) // must be overwritten, not accumulated
	}
	var s gemmScratch
	gemm(kern, &s, m, k, a, lda, packed, 0, n/panelWidth, c, ldc)
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			got := c[i*ldc+j]
			if j >= n {
				if !math.IsNaN(float64(got)) {
					t.Fatalf("C[%d,%d] beyond n written", i, j)
				}
				continue
			}
			w := want[i*n+j]
			if math.Abs(float64(got)-w) > 1e-4*math.Sqrt(float64(k))*(1+math.Abs(w)) {
				t.Fatalf("C[%d,%d] = %g, want %g", i, j, got, w)
			}
		}
	}
}

func TestKernelsAgree(t *testing.T) {
	ks := kernels()
	if runtime.GOARCH == "amd64" && len(ks) < 2 {
		t.Fatal("no AVX2/FMA kernel on this amd64 CPU")
	}
	shapes := []struct{ m, n, k, lda int }{
		{1, 16, 1, 1},
		{5, 16, 3, 7},         // fewer rows than a tile, k not a multiple of 4
		{6, 32, 4, 4},         // exactly one tile
		{13, 48, 37, 40},      // partial tile of one row
		{10, 32, 9, 9},        // partial tile of four rows (six-row kernel)
		{140, 64, 384, 384},   // crosses blockM
		{20, 96, 1000, 1003},  // crosses blockK: accumulation into C
		{9, 1152, 384, 384},   // the QKV product of a short query
		{17, 384, 1536, 1536}, // the FFN output of a short query
		{8, 32, 386, 400},     // one k pair after the last full block
		{16, 64, 384, 390},    // partial tile of four rows
		{11, 48, 40, 40},      // partial tile of five rows
		{4, 32, 64, 64},       // four rows only
		{265, 160, 130, 1152}, // several row blocks and panel groups
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		a := randomMatrix(r, sh.m*sh.lda)
		w := randomMatrix(r, sh.n*sh.k)
		h, wh := halfWeights(r, sh.n*sh.k)
		q, wq := intWeights(r, sh.n*sh.k)
		ai, af := int16Activations(r, sh.m*sh.lda)
		want := naiveProduct(sh.m, sh.n, sh.k, a, sh.lda, w)
		wantH := naiveProduct(sh.m, sh.n, sh.k, a, sh.lda, wh)
		wantQ := naiveProduct(sh.m, sh.n, sh.k, af, sh.lda, wq)
		for _, kern := range ks {
			name := fmt.Sprintf("%s/%dx%dx%d", kern.name, sh.m, sh.n, sh.k)
			t.Run(name+"/f32", func(t *testing.T) {
				checkGEMM(t, kern.kern, sh.m, sh.n, sh.k, a, sh.lda, packPanels(w, sh.n, sh.k), want)
			})
			t.Run(name+"/f16", func(t *testing.T) {
				checkGEMM(t, kern.kernF16, sh.m, sh.n, sh.k, a, sh.lda, packAs(h, sh.n, sh.k), wantH)
			})
			if sh.k%2 == 0 { // the integer kernels take k in pairs
				t.Run(name+"/int", func(t *testing.T) {
					checkGEMM(t, kern.kernInt, sh.m, sh.n, sh.k, ai, sh.lda, packPairs(q, sh.n, sh.k), wantQ)
				})
			}
		}
	}
}

// TestF16KernelsMatchF32 checks that fp16 panels give the float32
// kernels' results to the bit: the conversion is exact and the order of
// the sums is the same.
func TestF16KernelsMatchF32(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{1, 3, 4, 5, 9, 11, 16, 40} {
		const n, k = 64, 500
		a := randomMatrix(r, m*k)
		h, w := halfWeights(r, n*k)
		for _, kern := range kernels() {
			want, got := make([]float32, m*n), make([]float32, m*n)
			var s gemmScratch
			gemm(kern.kern, &s, m, k, a, k, packPanels(w, n, k), 0, n/panelWidth, want, n)
			gemm(kern.kernF16, &s, m, k, a, k, packAs(h, n, k), 0, n/panelWidth, got, n)
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("%s m=%d: element %d: f32 %g, f16 %g", kern.name, m, i, want[i], got[i])
				}
			}
		}
	}
}

func TestGEMMPanelRange(t *testing.T) {
	// Splitting the panels between calls, as the parallel path does, gives
	// bit-identical results.
	r := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 23, 160, 96
	a := randomMatrix(r, m*k)
	packed := packPanels(randomMatrix(r, n*k), n, k)
	for _, kern := range kernels() {
		whole := make([]float32, m*n)
		parts := make([]float32, m*n)
		var s gemmScratch
		gemm(kern.kern, &s, m, k, a, k, packed, 0, n/panelWidth, whole, n)
		gemm(kern.kern, &s, m, k, a, k, packed, 0, 3, parts, n)
		gemm(kern.kern, &s, m, k, a, k, packed, 3, n/panelWidth, parts, n)
		for i := range whole {
			if whole[i] != parts[i] {
				t.Fatalf("%s: element %d: whole %g, in parts %g", kern.name, i, whole[i], parts[i])
			}
		}
	}
}

func TestModelKernelsAgree(t *testing.T) {
	texts := []string{"How do I build the project?", "npm run build compiles TypeScript to dist/"}
	shared := testModel(t)
	var vecs [][][]float32
	for _, k := range kernels() {
		m := &Model{tok: shared.tok, enc: &encoder{w: shared.enc.w, ks: k}}
		v, err := m.Embed(t.Context(), texts)
		if err != nil {
			t.Fatal(err)
		}
		vecs = append(vecs, v)
	}
	for i := 1; i < len(vecs); i++ {
		for j := range texts {
			for d := range vecs[0][j] {
				if diff := math.Abs(float64(vecs[0][j][d] - vecs[i][j][d])); diff > 1e-5 {
					t.Fatalf("kernel %s text %d dim %d differs by %g", kernels()[i].name, j, d, diff)
				}
			}
		}
	}
}
