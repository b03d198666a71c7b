package minilm

import (
	"fmt"
	"runtime"
	"testing"
)

func TestZZMem(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	k := kernels()[0]
	const n, kk = 1536, 384
	var ws [][]float32
	for i := 0; i < 20; i++ {
		w := make([]float32, n*kk)
		for j := range w {
			w[j] = float32(j%5) * 0.1
		}
		ws = append(ws, packPanels(w, n, kk))
	}
	for _, m := range []int{6, 12, 24, 48, 96} {
		a := make([]float32, m*kk)
		c := make([]float32, m*n)
		var s gemmScratch
		for _, distinct := range []int{1, 20} {
			iters := 400
			t0 := threadCPU()
			for i := 0; i < iters; i++ {
				gemm(k.kern, &s, m, kk, a, kk, ws[i%distinct], 0, n/panelWidth, c, n)
			}
			d := threadCPU() - t0
			fmt.Printf("m=%d distinct=%d: %.1f GFLOP/cpu-s, %.1f GB/s of weights\n", m, distinct, float64(2*m*n*kk*iters)/d.Seconds()/1e9, float64(n*kk*4*iters)/d.Seconds()/1e9)
		}
	}
}
