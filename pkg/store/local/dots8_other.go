//go:build !amd64

package local

// dotsInt8Kernel returns the portable int8 kernel where no assembly exists.
func dotsInt8Kernel() func(q []int16, codes []int8, rows []int32, out []int32) {
	return dotsInt8Generic
}

// dotsInt8ChunkedKernel returns the portable in-place int8 kernel.
func dotsInt8ChunkedKernel() func(q []int16, chunks [][]int8, rows []int32, out []int32) {
	return dotsInt8ChunkedGeneric
}
