package minilm

import (
	"math"
)

// erf32 is a rational approximation of erf for float32 (the one Eigen and
// XLA use), within 5e-7 of math.Erf; the FFN calls it for every hidden
// unit, where float64 math.Erf would cost more than the matrix products.
func erf32(x float32) float32 {
	const (
		a1  = -1.60960333262415e-02
		a3  = -2.95459980854025e-03
		a5  = -7.34990630326855e-04
		a7  = -5.69250639462346e-05
		a9  = -2.10102402082508e-06
		a11 = 2.77068142495902e-08
		a13 = -2.72614225801306e-10
		b0  = -1.42647390514189e-02
		b2  = -7.37332916720468e-03
		b4  = -1.68282697438203e-03
		b6  = -2.13374055278905e-04
		b8  = -1.45660718464996e-05
	)
	x = min(max(x, -4), 4)
	x2 := x * x
	p := ((((((a13*x2+a11)*x2+a9)*x2+a7)*x2+a5)*x2+a3)*x2 + a1) * x
	q := (((b8*x2+b6)*x2+b4)*x2+b2)*x2 + b0
	return p / q
}

// biasGELU adds bias to each row of x (rows of len(bias)) and applies the
// exact (erf) GELU in place.
func biasGELU(x, bias []float32) {
	n := len(bias)
	if n == 0 {
		return
	}
	for r := 0; r+n <= len(x); r += n {
		row := x[r : r+n]
		for i, b := range bias {
			v := row[i] + b
			row[i] = 0.5 * v * (1 + erf32(v*math.Sqrt2/2))
		}
	}
}

// addBias adds bias to each row of x.
func addBias(x, bias []float32) {
	n := len(bias)
	if n == 0 {
		return
	}
	for r := 0; r+n <= len(x); r += n {
		row := x[r : r+n]
		for i, b := range bias {
			row[i] += b
		}
	}
}

// residualNorm sets x = LayerNorm(y + bias + x), row by row: the end of
// every BERT sub-layer.
func residualNorm(x, y, bias []float32, ln layerNorm) {
	n := len(bias)
	if n == 0 {
		return
	}
	for r := 0; r+n <= len(x); r += n {
		xr, yr := x[r:r+n], y[r:r+n]
		for i, b := range bias {
			yr[i] += b + xr[i]
		}
		normRow(xr, yr, ln)
	}
}

// normRow writes LayerNorm(src) to dst, accumulating in float64.
func normRow(dst, src []float32, ln layerNorm) {
	var sum float64
	for _, v := range src {
		sum += float64(v)
	}
	mean := sum / float64(len(src))
	var sq float64
	for _, v := range src {
		d := float64(v) - mean
		sq += d * d
	}
	inv := 1 / math.Sqrt(sq/float64(len(src))+layerNormEps)
	m, s := float32(mean), float32(inv)
	g, b := ln.gamma[:len(src)], ln.beta[:len(src)]
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = (v-m)*s*g[i] + b[i]
	}
}

// softmaxScaled turns row into softmax(row·scale) in place.
func softmaxScaled(row []float32, scale float32) {
	hi := row[0]
	for _, v := range row[1:] {
		hi = max(hi, v)
	}
	var sum float32
	for i, v := range row {
		e := exp32((v - hi) * scale)
		row[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range row {
		row[i] *= inv
	}
}

// exp32 is Cephes' expf (within 2 ulp): softmax needs n² exponentials per
// head, which math.Exp in float64 makes the bottleneck for long texts.
// Inputs are clamped to [-87.3, 88] so that 2ⁿ stays a normal float.
func exp32(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		c1    = 0.693359375
		c2    = -2.12194440e-4
		p0    = 1.9875691500e-4
		p1    = 1.3981999507e-3
		p2    = 8.3334519073e-3
		p3    = 4.1665795894e-2
		p4    = 1.6666665459e-1
		p5    = 5.0000001201e-1
	)
	x = min(max(x, -87.3), 88)
	n := float32(math.Floor(float64(x*log2e + 0.5)))
	x = x - n*c1 - n*c2
	y := (((((p0*x+p1)*x+p2)*x+p3)*x+p4)*x+p5)*(x*x) + x + 1
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}
