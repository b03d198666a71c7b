package minilm

import (
	"context"
	"fmt"
	"runtime"
)

// chunkTokens bounds the tokens run through the encoder at once: enough
// rows for the GEMM to reuse each weight panel well, few enough that the
// activations (16 MB) stay near the caches and cancellation is checked
// often. Measured best between 512 and 2048.
const chunkTokens = 1024

// Embed returns one L2-normalised vector per text, in order. Texts longer
// than 256 tokens are truncated. Texts are encoded in chunks of up to
// chunkTokens tokens, each with all GOMAXPROCS cores; ctx is checked
// between chunks.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	seqs := make([][]int32, len(texts))
	for i, t := range texts {
		seqs[i] = m.tok.encode(t)
	}
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*Dim)
	for i := range out {
		out[i] = flat[i*Dim : (i+1)*Dim : (i+1)*Dim]
	}
	ws, _ := m.workspaces.Get().(*workspace)
	if ws == nil {
		ws = &workspace{}
	}
	defer m.workspaces.Put(ws)
	par := runtime.GOMAXPROCS(0)
	for start := 0; start < len(seqs); {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
		}
		// Sequences are packed end to end, so a chunk needs no padding
		// and their order does not matter.
		end, tokens := start, 0
		for end < len(seqs) && (end == start || tokens+len(seqs[end]) <= chunkTokens) {
			tokens += len(seqs[end])
			end++
		}
		m.enc.encode(ws, par, seqs[start:end], out[start:end])
		start = end
	}
	return out, nil
}
