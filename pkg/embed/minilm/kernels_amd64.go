//go:build amd64

package minilm

import (
	"golang.org/x/sys/cpu"
)

// The assembly micro-kernels compute an R×16 tile, R in the name: float32
// panels (gemm_amd64.s, gemm_edge_amd64.s), fp16 panels widened by F16C
// (gemm_f16_amd64.s, gemm_edge_f16_amd64.s) and integer panels
// (gemm_int_amd64.s).

//go:noescape
func gemm3x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc bool)

//go:noescape
func gemm4x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc bool)

//go:noescape
func gemm5x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc bool)

//go:noescape
func gemm6x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc bool)

//go:noescape
func gemm3x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int, acc bool)

//go:noescape
func gemm4x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int, acc bool)

//go:noescape
func gemm5x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int, acc bool)

//go:noescape
func gemm6x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int, acc bool)

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

//go:noescape
func gemm1x16IntVNNI(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm2x16IntVNNI(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm3x16IntVNNI(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm4x16IntVNNI(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm5x16IntVNNI(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm6x16IntVNNI(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:generate go run ./internal/genvnni512

// The integer kernels on 512-bit registers (gemm_vnni512_amd64.s).
//
//go:noescape
func gemm1x16IntVNNI512(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm2x16IntVNNI512(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm3x16IntVNNI512(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm4x16IntVNNI512(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm5x16IntVNNI512(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

//go:noescape
func gemm6x16IntVNNI512(k int, a *int16, lda int, b *int16, c *float32, ldc int, acc bool)

// asmKernel wraps an assembly kernel for rows rows; fallback handles k ≤ 0.
// The slice checks keep every access of the assembly in bounds.
func asmKernel[A activationElem, W weightElem](rows int, asm func(k int, a *A, lda int, b *W, c *float32, ldc int, acc bool), fallback microKernel[A, W]) microKernel[A, W] {
	return func(k int, a []A, lda int, b []W, c []float32, ldc int, acc bool) {
		if k <= 0 {
			fallback(k, a, lda, b, c, ldc, acc)
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
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA || !cpu.X86.HasF16C {
		return []kernelSet{portable}
	}
	f32 := func(rows int, asm func(int, *float32, int, *float32, *float32, int, bool)) microKernel[float32, float32] {
		return asmKernel(rows, asm, kernelGo)
	}
	f16 := func(rows int, asm func(int, *float32, int, *uint16, *float32, int, bool)) microKernel[float32, uint16] {
		return asmKernel(rows, asm, kernelGoF16)
	}
	i16 := func(rows int, asm func(int, *int16, int, *int16, *float32, int, bool)) microKernel[int16, int16] {
		return asmKernel(rows, asm, kernelGoInt)
	}
	k3, k4, k5, k6 := f32(3, gemm3x16AVX2), f32(4, gemm4x16AVX2), f32(5, gemm5x16AVX2), f32(6, gemm6x16AVX2)
	h3, h4, h5, h6 := f16(3, gemm3x16F16AVX2), f16(4, gemm4x16F16AVX2), f16(5, gemm5x16F16AVX2), f16(6, gemm6x16F16AVX2)
	avx2 := kernelSet{
		name:    "avx2",
		kern:    tileKernels[float32, float32]{six: k6, edge: [tileRows - 1]microKernel[float32, float32]{k3, k3, k3, k4, k5}},
		kernF16: tileKernels[float32, uint16]{six: h6, edge: [tileRows - 1]microKernel[float32, uint16]{h3, h3, h3, h4, h5}},
		kernInt: tileKernels[int16, int16]{six: i16(6, gemm6x16IntAVX2), edge: [tileRows - 1]microKernel[int16, int16]{
			i16(1, gemm1x16IntAVX2), i16(2, gemm2x16IntAVX2), i16(3, gemm3x16IntAVX2), i16(4, gemm4x16IntAVX2), i16(5, gemm5x16IntAVX2)}},
		quantizeRow: quantizeRowAVX2,
		scaleRow:    scaleRowAVX2,
		gelu:        geluAVX2,
		softmax:     softmaxAVX2,
	}
	if !cpu.X86.HasAVX512VNNI || !cpu.X86.HasAVX512VL {
		return []kernelSet{avx2, portable}
	}
	// The integer products with VPDPWSSD (gemm_vnni_amd64.s); the rest as
	// AVX2.
	vnni := avx2
	vnni.name = "avx512vnni"
	vnni.kernInt = tileKernels[int16, int16]{six: i16(6, gemm6x16IntVNNI), edge: [tileRows - 1]microKernel[int16, int16]{
		i16(1, gemm1x16IntVNNI), i16(2, gemm2x16IntVNNI), i16(3, gemm3x16IntVNNI), i16(4, gemm4x16IntVNNI), i16(5, gemm5x16IntVNNI)}}
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512BW {
		return []kernelSet{vnni, avx2, portable}
	}
	// The same products on 512-bit registers (gemm_vnni512_amd64.s): one
	// VPDPWSSD a row and k pair where the 256-bit kernels need two.
	zmm := vnni
	zmm.name = "avx512vnni-zmm"
	zmm.kernInt = tileKernels[int16, int16]{six: i16(6, gemm6x16IntVNNI512), edge: [tileRows - 1]microKernel[int16, int16]{
		i16(1, gemm1x16IntVNNI512), i16(2, gemm2x16IntVNNI512), i16(3, gemm3x16IntVNNI512), i16(4, gemm4x16IntVNNI512), i16(5, gemm5x16IntVNNI512)}}
	return []kernelSet{zmm, vnni, avx2, portable}
}
