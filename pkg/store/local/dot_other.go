//go:build !amd64

package local

// dotKernel returns the portable inner product where no assembly exists.
func dotKernel() func(a, b []float32) float32 { return dotGeneric }
