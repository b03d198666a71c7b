package minilm

import (
	"encoding/json"
	"fmt"
)

// The architecture of all-MiniLM-L6-v2. The forward pass is written for
// these shapes; loadConfig checks that config.json agrees.
const (
	vocabSize    = 30522
	hiddenSize   = 384
	numLayers    = 6
	numHeads     = 12
	headDim      = hiddenSize / numHeads
	interSize    = 1536
	maxPositions = 512
	typeVocab    = 2
	layerNormEps = 1e-12
)

type bertConfig struct {
	VocabSize        int     `json:"vocab_size"`
	HiddenSize       int     `json:"hidden_size"`
	NumLayers        int     `json:"num_hidden_layers"`
	NumHeads         int     `json:"num_attention_heads"`
	IntermediateSize int     `json:"intermediate_size"`
	MaxPositions     int     `json:"max_position_embeddings"`
	TypeVocabSize    int     `json:"type_vocab_size"`
	HiddenAct        string  `json:"hidden_act"`
	LayerNormEps     float64 `json:"layer_norm_eps"`
	PositionType     string  `json:"position_embedding_type"`
}

func checkConfig(data []byte) error {
	var c bertConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("decode config.json: %w", err)
	}
	want := bertConfig{
		VocabSize: vocabSize, HiddenSize: hiddenSize, NumLayers: numLayers, NumHeads: numHeads,
		IntermediateSize: interSize, MaxPositions: maxPositions, TypeVocabSize: typeVocab,
		HiddenAct: "gelu", LayerNormEps: layerNormEps, PositionType: "absolute",
	}
	if c != want {
		return fmt.Errorf("config.json: got %+v, the forward pass implements %+v", c, want)
	}
	return nil
}
