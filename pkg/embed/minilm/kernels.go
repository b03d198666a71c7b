package minilm

// kernelSet is the inner loops of the forward pass for one instruction
// set: the GEMM micro-kernels (one per weight format), the bias+GELU pass over the FFN and the
// attention softmax.
type kernelSet struct {
	name    string
	kern    tileKernels[float32]
	kernF16 tileKernels[uint16]
	kernI8  tileKernels[int8]
	gelu    func(x, bias []float32)
	softmax func(row []float32, scale float32)
}

// portable runs anywhere.
// Its three-row kernels are the six-row ones: the scratch tile they run on
// has six rows.
var portable = kernelSet{
	name:    "go",
	kern:    tileKernels[float32]{kernelGo, kernelGo},
	kernF16: tileKernels[uint16]{kernelGoF16, kernelGoF16},
	kernI8:  tileKernels[int8]{kernelGoI8, kernelGoI8},
	gelu:    biasGELU,
	softmax: softmaxScaled,
}
