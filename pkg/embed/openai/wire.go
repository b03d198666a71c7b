package openai

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens int64 `json:"prompt_tokens"`
		TotalTokens  int64 `json:"total_tokens"`
	} `json:"usage"`
}

// tokens is what the request cost in input tokens: prompt_tokens, or
// total_tokens from servers that only send that.
func (r *response) tokens() int64 {
	if r.Usage == nil {
		return 0
	}
	if r.Usage.PromptTokens > 0 {
		return r.Usage.PromptTokens
	}
	return r.Usage.TotalTokens
}

type errorBody struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// decodeEmbedding reads a vector as a JSON array of numbers or, from servers
// that answer in OpenAI's base64 format regardless, as base64 of
// little-endian float32s.
func decodeEmbedding(raw json.RawMessage) ([]float32, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("decode base64 embedding: %w", err)
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("base64 embedding of %d bytes is not float32s", len(b))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	}
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// errNotUnit marks a vector that cannot be normalised.
var errNotUnit = errors.New("vector is zero or not finite")

// normalize scales v to unit length in place: the store and recall compare
// vectors by dot product.
func normalize(v []float32) error {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return errNotUnit
	}
	scale := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * scale)
	}
	return nil
}
