package minilm

import (
	"math"
	"testing"
)

func TestErf32(t *testing.T) {
	worst := 0.0
	for x := -8.0; x <= 8; x += 1.0 / 4096 {
		got := float64(erf32(float32(x)))
		worst = max(worst, math.Abs(got-math.Erf(x)))
	}
	if worst > 1e-6 {
		t.Fatalf("max |erf32 - erf| = %g, want ≤ 1e-6", worst)
	}
}

func TestSoftmaxScaled(t *testing.T) {
	row := []float32{1, 2, 3, 100}
	softmaxScaled(row, 0.5)
	var sum float64
	for _, v := range row {
		sum += float64(v)
	}
	if math.Abs(sum-1) > 1e-6 || row[3] < 0.999 || row[2] <= row[1] || row[1] <= row[0] {
		t.Fatalf("softmax = %v (sum %g)", row, sum)
	}
	want := math.Exp(0.5) // ratio of neighbours 1 and 2 at scale 0.5
	if got := float64(row[1] / row[0]); math.Abs(got-want) > 1e-5 {
		t.Errorf("ratio %g, want %g", got, want)
	}
}

func TestNormRow(t *testing.T) {
	src := []float32{1, 2, 3, 4}
	dst := make([]float32, 4)
	normRow(dst, src, layerNorm{gamma: []float32{1, 1, 1, 2}, beta: []float32{0, 0, 0, 1}})
	// mean 2.5, variance 1.25
	inv := 1 / math.Sqrt(1.25+layerNormEps)
	want := []float64{-1.5 * inv, -0.5 * inv, 0.5 * inv, 2*1.5*inv + 1}
	for i := range want {
		if math.Abs(float64(dst[i])-want[i]) > 1e-6 {
			t.Fatalf("normRow = %v, want %v", dst, want)
		}
	}
}

func TestGELUKernelsAgree(t *testing.T) {
	const n = 1536 + 5 // a tail that is not a multiple of 8
	bias := make([]float32, n)
	x := make([]float32, 3*n)
	for i := range bias {
		bias[i] = float32(i%7)*0.25 - 0.75
	}
	for i := range x {
		x[i] = float32(i%97)*0.125 - 6
	}
	for _, ks := range kernels() {
		got := append([]float32(nil), x...)
		ks.gelu(got, bias)
		for i, v := range x {
			u := float64(v + bias[i%n])
			want := 0.5 * u * (1 + math.Erf(u/math.Sqrt2))
			if math.Abs(float64(got[i])-want) > 2e-6*(1+math.Abs(want)) {
				t.Fatalf("%s: gelu(%g) = %g, want %g", ks.name, u, got[i], want)
			}
		}
	}
}

func TestExp32(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 88; x += 1.0 / 64 {
		got, want := float64(exp32(float32(x))), math.Exp(float64(float32(x)))
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 3e-7 {
		t.Fatalf("max relative error %g", worst)
	}
	if got := exp32(float32(math.Inf(-1))); got < 0 || got > 1e-37 {
		t.Errorf("exp32(-Inf) = %g, want ~0", got)
	}
}

func TestSoftmaxKernelsAgree(t *testing.T) {
	const n = 48
	for _, ks := range kernels() {
		row := make([]float32, n)
		for i := range row {
			row[i] = float32(i%11)*1.7 - 9
		}
		row[n-3], row[n-2], row[n-1] = float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))
		want := make([]float64, n)
		var sum float64
		for i, v := range row[:n-3] {
			want[i] = math.Exp(float64(v) * 0.25)
			sum += want[i]
		}
		ks.softmax(row, 0.25)
		for i := range row {
			if math.Abs(float64(row[i])-want[i]/sum) > 1e-6 {
				t.Fatalf("%s: softmax[%d] = %g, want %g", ks.name, i, row[i], want[i]/sum)
			}
		}
	}
}
