package minilm

// kernelSet is the inner loops of the forward pass for one instruction
// set: the GEMM micro-kernels (one set per format of the weights), the
// rounding and scaling around the integer products, the bias+GELU pass
// over the FFN and the attention softmax.
type kernelSet struct {
	name    string
	kern    tileKernels[float32, float32]
	kernF16 tileKernels[float32, uint16]
	kernInt tileKernels[int16, int16]
	// quantizeRow rounds one row of activations for kernInt (see
	// quantizeRowGo).
	quantizeRow func(dst []int16, src []float32) float32
	// scaleRow multiplies row[j] by s·scale[j] (see scaleRowGo).
	scaleRow func(row, scale []float32, s float32)
	gelu     func(x, bias []float32)
	softmax  func(row []float32, scale float32)
}

// portable runs anywhere. Its edge kernels are the six-row ones: the
// scratch tile they run on has six rows.
var portable = kernelSet{
	name:        "go",
	kern:        sameKernels(kernelGo),
	kernF16:     sameKernels(kernelGoF16),
	kernInt:     sameKernels(kernelGoInt),
	quantizeRow: quantizeRowGo,
	scaleRow:    scaleRowGo,
	gelu:        biasGELU,
	softmax:     softmaxScaled,
}
