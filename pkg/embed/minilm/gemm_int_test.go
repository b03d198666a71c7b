package minilm

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestQuantizeRow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{16, 384, 1536, 20} {
		src := randomMatrix(r, n)
		src[r.IntN(n)] = -9.5 // an outlier sets the scale
		want := make([]int16, n)
		hi := quantizeRowGo(want, src)
		if hi != 9.5 {
			t.Fatalf("n=%d: hi = %g, want 9.5", n, hi)
		}
		for i, q := range want {
			if q < -actMax || q > actMax {
				t.Fatalf("n=%d: q[%d] = %d out of range", n, i, q)
			}
			if d := math.Abs(float64(q)*float64(hi)/actMax - float64(src[i])); d > 0.5001*float64(hi)/actMax {
				t.Fatalf("n=%d: q[%d] = %d is %g from %g", n, i, q, d, src[i])
			}
		}
		for _, ks := range kernels() {
			got := make([]int16, n)
			if h := ks.quantizeRow(got, src); h != hi {
				t.Fatalf("%s n=%d: hi %g, want %g", ks.name, n, h, hi)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s n=%d: q[%d] = %d, want %d", ks.name, n, i, got[i], want[i])
				}
			}
			zero := make([]float32, n)
			if h := ks.quantizeRow(got, zero); h != 0 {
				t.Fatalf("%s: hi of a zero row = %g", ks.name, h)
			}
		}
	}
}

func TestQuantizeRowsZeroRow(t *testing.T) {
	src := []float32{0, 0, 1, -2}
	dst := []int16{5, 5, 5, 5}
	scale := make([]float32, 2)
	quantizeRows(quantizeRowGo, dst, scale, src, 2)
	if dst[0] != 0 || dst[1] != 0 || scale[0] != 0 {
		t.Fatalf("zero row: %v scale %g", dst[:2], scale[0])
	}
	if dst[3] != -actMax || scale[1] != 2.0/actMax {
		t.Fatalf("row 1: %v scale %g", dst[2:], scale[1])
	}
}

func TestScaleRow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{8, 64, 21} {
		row, scale := randomMatrix(r, n), randomMatrix(r, n)
		want := append([]float32(nil), row...)
		scaleRowGo(want, scale, 0.25)
		for i := range want {
			if want[i] != row[i]*(0.25*scale[i]) {
				t.Fatalf("scaleRowGo[%d] = %g, want %g", i, want[i], row[i]*0.25*scale[i])
			}
		}
		for _, ks := range kernels() {
			got := append([]float32(nil), row...)
			ks.scaleRow(got, scale, 0.25)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s n=%d: [%d] = %g, want %g", ks.name, n, i, got[i], want[i])
				}
			}
		}
	}
}

func TestQuantizeColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, k = 32, 10
	w := randomMatrix(r, n*k)
	q, scale := quantizeColumns(packPanels(w, n, k), n, k)
	for j := 0; j < n; j++ {
		var hi float64
		for p := 0; p < k; p++ {
			hi = max(hi, math.Abs(float64(w[j*k+p])))
		}
		if math.Abs(float64(scale[j])-hi/weightMax) > 1e-7*hi {
			t.Fatalf("scale[%d] = %g, want %g", j, scale[j], hi/weightMax)
		}
		for p := 0; p < k; p++ {
			got := float64(q[j/panelWidth*k*panelWidth+pairIndex(p, j%panelWidth)]) * float64(scale[j])
			if math.Abs(got-float64(w[j*k+p])) > 0.5001*float64(scale[j]) {
				t.Fatalf("w[%d,%d] = %g, quantised %g", j, p, w[j*k+p], got)
			}
		}
	}
}
