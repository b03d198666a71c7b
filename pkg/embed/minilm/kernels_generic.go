//go:build !amd64

package minilm

// kernels lists the kernel sets this CPU can run, fastest first.
func kernels() []kernelSet {
	return []kernelSet{portable}
}
