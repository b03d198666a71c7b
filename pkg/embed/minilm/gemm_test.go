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

func TestKernelsAgree(t *testing.T) {
	ks := kernels()
	if runtime.GOARCH == "amd64" && len(ks) < 2 {
		t.Fatal("no AVX2/FMA kernel on this amd64 CPU")
	}
	shapes := []struct{ m, n, k, lda int }{
		{1, 16, 1, 1},
		{5, 16, 3, 7},         // fewer rows than a tile, k not a multiple of 4
		{6, 32, 4, 4},         // exactly one tile
		{13, 48, 37, 40},      // partial tile, padded rows of A
		{140, 64, 384, 384},   // crosses blockM
		{20, 96, 1000, 1003},  // crosses blockK: accumulation into C
		{9, 1152, 384, 384},   // the QKV product of a short query
		{265, 160, 130, 1152}, // several row blocks and panel groups
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		a := randomMatrix(r, sh.m*sh.lda)
		w := randomMatrix(r, sh.n*sh.k)
		want := naiveProduct(sh.m, sh.n, sh.k, a, sh.lda, w)
		packed := packPanels(w, sh.n, sh.k)
		for _, kern := range ks {
			t.Run(fmt.Sprintf("%s/%dx%dx%d", kern.name, sh.m, sh.n, sh.k), func(t *testing.T) {
				const ldcPad = 5 // C wider than n: only n columns are written
				ldc := sh.n + ldcPad
				c := make([]float32, sh.m*ldc)
				for i := range c {
					c[i] = float32(math.NaN()) // must be overwritten, not accumulated
				}
				var s gemmScratch
				gemm(kern.kern, &s, sh.m, sh.k, a, sh.lda, packed, 0, sh.n/panelWidth, c, ldc)
				for i := 0; i < sh.m; i++ {
					for j := 0; j < ldc; j++ {
						got := c[i*ldc+j]
						if j >= sh.n {
							if !math.IsNaN(float64(got)) {
								t.Fatalf("C[%d,%d] beyond n written", i, j)
							}
							continue
						}
						w := want[i*sh.n+j]
						if math.Abs(float64(got)-w) > 1e-4*math.Sqrt(float64(sh.k))*(1+math.Abs(w)) {
							t.Fatalf("C[%d,%d] = %g, want %g", i, j, got, w)
						}
					}
				}
			})
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
