package cache

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"sync"
)

// hashModel is a deterministic stand-in for a model: each text's vector is
// derived from its hash, and every call is recorded so tests can see what
// the cache let through.
type hashModel struct {
	name string
	dim  int
	err  error

	mu    sync.Mutex
	calls [][]string
}

func newHashModel(name string) *hashModel { return &hashModel{name: name, dim: 8} }

func (m *hashModel) Dim() int      { return m.dim }
func (m *hashModel) Model() string { return m.name }

func (m *hashModel) Embed(_ context.Context, texts []string) ([][]float32, error) {
	m.mu.Lock()
	m.calls = append(m.calls, slices.Clone(texts))
	m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = m.vector(t)
	}
	return out, nil
}

func (m *hashModel) vector(text string) []float32 {
	sum := sha256.Sum256([]byte(m.name + "|" + text))
	v := make([]float32, m.dim)
	for i := range v {
		v[i] = float32(sum[i%len(sum)]) / 255
	}
	return v
}

func (m *hashModel) Calls() [][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}

var errModel = errors.New("model unavailable")
