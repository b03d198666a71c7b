package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
	"time"
	"unicode"
)

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type chatChoice struct {
	Index        int        `json:"index"`
	Message      wireAnswer `json:"message"`
	FinishReason string     `json:"finish_reason"`
}

type wireAnswer struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatBody struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage,omitempty"`
}

func chatResponse(req Request, reply Reply) chatBody {
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	body := chatBody{
		ID: "chatcmpl-" + requestID(req), Object: "chat.completion", Created: time.Now().Unix(), Model: model,
		Choices: []chatChoice{{Message: wireAnswer{Role: "assistant", Content: reply.Content}, FinishReason: finish}},
	}
	if !reply.NoUsage {
		in, out := reply.InputTokens, reply.OutputTokens
		if in == 0 && out == 0 {
			var prompt []string
			for _, m := range req.Messages {
				prompt = append(prompt, m.Content)
			}
			in, out = words(prompt...), words(reply.Content)
		}
		body.Usage = &wireUsage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
	}
	return body
}

type embeddingItem struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"` // []float32, or a base64 string
}

type embeddingBody struct {
	Object string          `json:"object"`
	Data   []embeddingItem `json:"data"`
	Model  string          `json:"model"`
	Usage  *wireUsage      `json:"usage,omitempty"`
}

func (s *Server) embeddingResponse(req Request, reply Reply) embeddingBody {
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	vecs := reply.Embeddings
	if vecs == nil {
		for _, in := range req.Input {
			vecs = append(vecs, Vector(in, s.o.dims))
		}
	}
	body := embeddingBody{Object: "list", Model: model}
	for i, v := range vecs {
		item := embeddingItem{Object: "embedding", Index: i, Embedding: v}
		if req.EncodingFormat == "base64" {
			item.Embedding = encodeBase64(v)
		}
		body.Data = append(body.Data, item)
	}
	if !reply.NoUsage {
		in := reply.InputTokens
		if in == 0 {
			in = words(req.Input...)
		}
		body.Usage = &wireUsage{PromptTokens: in, TotalTokens: in}
	}
	return body
}

// Vector is the made-up embedding of text: words hashed into dims signed
// buckets, L2-normalised. Equal texts get equal vectors and texts sharing
// words point in similar directions, which is enough for dedup and recall
// tests.
func Vector(text string, dims int) []float32 {
	v := make([]float32, max(dims, 1))
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range fields {
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		sum := h.Sum64()
		sign := float32(1)
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(len(v))] += sign
	}
	var norm float64
	for _, x := range v {
		norm += float64(x * x)
	}
	if norm == 0 {
		v[0] = 1 // no words: still a unit vector, so cosine is defined
		return v
	}
	scale := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= scale
	}
	return v
}

// encodeBase64 is OpenAI's base64 encoding format: little-endian float32s.
func encodeBase64(v []float32) string {
	var buf bytes.Buffer
	_ = binary.Write(&buf, binary.LittleEndian, v)
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
