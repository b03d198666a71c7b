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
func gemm6x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int, acc bool)

// kernelF16AVX2 is kernelAVX2 over fp16 panels (gemm_f16_amd64.s, F16C).
func kernelF16AVX2(k int, a []float32, lda int, b []uint16, c []float32, ldc int, acc bool) {
	if k <= 0 {
		kernelGoF16(k, a, lda, b, c, ldc, acc)
		return
	}
	_ = a[(tileRows-1)*lda+k-1]
	_ = b[panelWidth*k-1]
	_ = c[(tileRows-1)*ldc+panelWidth-1]
	gemm6x16F16AVX2(k, &a[0], lda, &b[0], &c[0], ldc, acc)
}

//go:noescape
func gemm3x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc bool)

//go:noescape
func gemm3x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int, acc bool)

//go:noescape
func gemm1x16IntAVX2(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm2x16IntAVX2(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm3x16IntAVX2(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm4x16IntAVX2(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm5x16IntAVX2(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm6x16IntAVX2(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

// intKernelAVX2 wraps the integer kernel for rows rows (gemm_int_amd64.s);
// k is even.
func intKernelAVX2(rows int, asm func(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)) microKernel[int16, int16] {
	return func(k int, a []int16, lda int, b []int16, c []float32, ldc int, acc bool) {
		if k <= 0 {
			kernelGoInt(k, a, lda, b, c, ldc, acc)
			return
		}
		_ = a[(rows-1)*lda+k-1]
		_ = b[panelWidth*k-1]
		_ = c[(rows-1)*ldc+panelWidth-1]
		asm(k, &a[0], lda, &b[0], &c[0], ldc, acc)
	}
}

//go:noescape
func scaleRow8AVX2(row *float32, scale *float32, n int, s float32)

// scaleRowAVX2 is scaleRowGo 8 values at a time (quantize_amd64.s).
func scaleRowAVX2(row, scale []float32, s float32) {
	n := len(scale) - len(scale)%8
	if n > 0 {
		_ = row[n-1]
		scaleRow8AVX2(&row[0], &scale[0], n, s)
	}
	scaleRowGo(row[n:], scale[n:], s)
}

// The three-row kernels (gemm3*_amd64.s) compute rows 0..2 of the tile.

func kernel3AVX2(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) {
	if k <= 0 {
		kernelGo(k, a, lda, b, c, ldc, acc)
		return
	}
	_ = a[2*lda+k-1]
	_ = b[panelWidth*k-1]
	_ = c[2*ldc+panelWidth-1]
	gemm3x16AVX2(k, &a[0], lda, &b[0], &c[0], ldc, acc)
}

func kernel3F16AVX2(k int, a []float32, lda int, b []uint16, c []float32, ldc int, acc bool) {
	if k <= 0 {
		kernelGoF16(k, a, lda, b, c, ldc, acc)
		return
	}
	_ = a[2*lda+k-1]
	_ = b[panelWidth*k-1]
	_ = c[2*ldc+panelWidth-1]
	gemm3x16F16AVX2(k, &a[0], lda, &b[0], &c[0], ldc, acc)
}

//go:noescape
func quantizeRow16AVX2(src *float32, dst *int16, n int) float32

// quantizeRowAVX2 is quantizeRowGo 16 values at a time (quantize_amd64.s)
// for rows whose length is a multiple of 16, as the model's are.
func quantizeRowAVX2(dst []int16, src []float32) float32 {
	if len(src) == 0 || len(src)%16 != 0 {
		return quantizeRowGo(dst, src)
	}
	_ = dst[len(src)-1]
	return quantizeRow16AVX2(&src[0], &dst[0], len(src))
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
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C {
		avx2 := kernelSet{
			name: "avx2",
			kern: tileKernels[float32, float32]{six: kernelAVX2, edge: [tileRows - 1]microKernel[float32, float32]{
				kernel3AVX2, kernel3AVX2, kernel3AVX2, kernelAVX2, kernelAVX2}},
			kernF16: tileKernels[float32, uint16]{six: kernelF16AVX2, edge: [tileRows - 1]microKernel[float32, uint16]{
				kernel3F16AVX2, kernel3F16AVX2, kernel3F16AVX2, kernelF16AVX2, kernelF16AVX2}},
			kernInt: tileKernels[int16, int16]{six: intKernelAVX2(6, gemm6x16IntAVX2), edge: [tileRows - 1]microKernel[int16, int16]{
				intKernelAVX2(1, gemm1x16IntAVX2), intKernelAVX2(2, gemm2x16IntAVX2), intKernelAVX2(3, gemm3x16IntAVX2),
				intKernelAVX2(4, gemm4x16IntAVX2), intKernelAVX2(5, gemm5x16IntAVX2)}},
			quantizeRow: quantizeRowAVX2,
			scaleRow:    scaleRowAVX2,
			gelu:        geluAVX2,
			softmax:     softmaxAVX2,
		}
		return []kernelSet{avx2, portable}
	}
	return []kernelSet{portable}
}
