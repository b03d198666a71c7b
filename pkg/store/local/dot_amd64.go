package local

import "golang.org/x/sys/cpu"

// dotAVX2 is dotGeneric with 256-bit fused multiply-adds; n is the length
// of both vectors.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

// dotKernel picks the fastest inner product this CPU runs. A scan uses one
// kernel throughout, so equal vectors always score equal.
func dotKernel() func(a, b []float32) float32 {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return dotFast
	}
	return dotGeneric
}

func dotFast(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	return dotAVX2(&a[0], &b[0], len(a))
}
