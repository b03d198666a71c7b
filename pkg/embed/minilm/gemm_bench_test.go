package minilm

import (
	"fmt"
	"testing"
)

func BenchmarkGEMM(b *testing.B) {
	for _, k := range kernels() {
		for _, sz := range []struct{ m, n, kk int }{{768, 1152, 384}, {768, 1536, 384}, {768, 384, 1536}, {12, 1536, 384}} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", k.name, sz.m, sz.n, sz.kk), func(b *testing.B) {
				a := make([]float32, sz.m*sz.kk)
				w := make([]float32, sz.n*sz.kk)
				for i := range a {
					a[i] = float32(i%7) * 0.1
				}
				for i := range w {
					w[i] = float32(i%5) * 0.1
				}
				p := packPanels(w, sz.n, sz.kk)
				c := make([]float32, sz.m*sz.n)
				var s gemmScratch
				for b.Loop() {
					gemm(k.kern, &s, sz.m, sz.kk, a, sz.kk, p, 0, sz.n/panelWidth, c, sz.n)
				}
				b.ReportMetric(float64(2*sz.m*sz.n*sz.kk)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkGEMMInt is BenchmarkGEMM for the integer kernels, in multiply-
// adds per second.
func BenchmarkGEMMInt(b *testing.B) {
	for _, k := range kernels() {
		for _, sz := range []struct{ m, n, kk int }{{768, 1152, 384}, {768, 384, 1536}, {16, 1536, 384}} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", k.name, sz.m, sz.n, sz.kk), func(b *testing.B) {
				a := make([]int16, sz.m*sz.kk)
				w := make([]int16, sz.n*sz.kk)
				for i := range a {
					a[i] = int16(i%7*1000 - 3000)
				}
				for i := range w {
					w[i] = int16(i%5*100 - 200)
				}
				p := packPairs(w, sz.n, sz.kk)
				c := make([]float32, sz.m*sz.n)
				var s gemmScratch
				for b.Loop() {
					gemm(k.kernInt, &s, sz.m, sz.kk, a, sz.kk, p, 0, sz.n/panelWidth, c, sz.n)
				}
				b.ReportMetric(float64(sz.m*sz.n*sz.kk)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}
