//go:build amd64

package minilm

import (
	"golang.org/x/sys/cpu"
)

//go:noescape
func gemm6x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc bool)

// kernelAVX2 is the AVX2/FMA micro-kernel (gemm_amd64.s). The slice checks
// keep every access of the assembly in bounds.
func kernelAVX2(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) {
	if k <= 0 {
		kernelGo(k, a, lda, b, c, ldc, acc)
		return
	}
	_ = a[(tileRows-1)*lda+k-1]
	_ = b[panelWidth*k-1]
	_ = c[(tileRows-1)*ldc+panelWidth-1]
	gemm6x16AVX2(k, &a[0], lda, &b[0], &c[0], ldc, acc)
}

//go:noescape
func geluRowAVX2(x *float32, bias *float32, n int)

// geluAVX2 is biasGELU with 8 lanes at a time (gelu_amd64.s).
func geluAVX2(x, bias []float32) {
	n := len(bias)
	if n == 0 {
		return
	}
	vec := n - n%8
	for r := 0; r+n <= len(x); r += n {
		row := x[r : r+n]
		if vec > 0 {
			geluRowAVX2(&row[0], &bias[0], vec)
		}
		if vec < n {
			biasGELU(row[vec:], bias[vec:])
		}
	}
}

//go:noescape
func softmaxRowAVX2(x *float32, n int, scale float32)

// softmaxAVX2 is softmaxScaled 8 lanes at a time (softmax_amd64.s) for rows
// whose length is a multiple of 8, as attention's padded rows are.
func softmaxAVX2(row []float32, scale float32) {
	if len(row) == 0 || len(row)%8 != 0 {
		softmaxScaled(row, scale)
		return
	}
	softmaxRowAVX2(&row[0], len(row), scale)
}

// kernels lists the kernel sets this CPU can run, fastest first.
func kernels() []kernelSet {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return []kernelSet{{"avx2", kernelAVX2, geluAVX2, softmaxAVX2}, portable}
	}
	return []kernelSet{portable}
}
