package minilm

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, k := range kernels()[:1] {
		for _, sz := range []struct{ m, n, kk int }{{768, 1152, 384}, {768, 1536, 384}, {768, 384, 1536}, {12, 1536, 384}, {132, 1536, 384}} {
			a := make([]float32, sz.m*sz.kk)
			w := make([]float32, sz.n*sz.kk)
			for i := range a {
				a[i] = float32(i%7) * 0.1
			}
			p := packPanels(w, sz.n, sz.kk)
			c := make([]float32, sz.m*sz.n)
			var s gemmScratch
			iters := 2e9 / (2 * sz.m * sz.n * sz.kk)
			t0 := threadCPU()
			for i := 0; i < iters; i++ {
				gemm(k.kern, &s, sz.m, sz.kk, a, sz.kk, p, 0, sz.n/panelWidth, c, sz.n)
			}
			d := threadCPU() - t0
			fmt.Printf("%s %v: %.1f GFLOP/cpu-s\n", k.name, sz, float64(2*sz.m*sz.n*sz.kk*iters)/d.Seconds()/1e9)
		}
	}
	m := testModel(t)
	ctx := context.Background()
	m.Embed(ctx, shortSentences)
	t0 := threadCPU()
	w0 := time.Now()
	for i := 0; i < 5; i++ {
		m.enc.encode(&workspace{}, 1, tokAll(m, shortSentences), make2(len(shortSentences)))
	}
	d := threadCPU() - t0
	fmt.Printf("short: %.1f sentences/cpu-s (wall %.1f)\n", float64(5*len(shortSentences))/d.Seconds(), float64(5*len(shortSentences))/time.Since(w0).Seconds())
	q := tokAll(m, []string{"How do I build the project?"})
	t0 = threadCPU()
	for i := 0; i < 100; i++ {
		m.enc.encode(&workspace{}, 1, q, make2(1))
	}
	fmt.Printf("query: %.2f ms cpu\n", (threadCPU()-t0).Seconds()*10)
}

func tokAll(m *Model, s []string) [][]int32 {
	out := make([][]int32, len(s))
	for i := range s {
		out[i] = m.tok.encode(s[i])
	}
	return out
}

func make2(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, Dim)
	}
	return out
}
