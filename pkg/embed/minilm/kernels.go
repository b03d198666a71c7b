package minilm

// kernelSet is the inner loops of the forward pass for one instruction
// set: the GEMM micro-kernel, the bias+GELU pass over the FFN and the
// attention softmax.
type kernelSet struct {
	name    string
	kern    microKernel
	gelu    func(x, bias []float32)
	softmax func(row []float32, scale float32)
}

// portable runs anywhere.
var portable = kernelSet{"go", kernelGo, biasGELU, softmaxScaled}
