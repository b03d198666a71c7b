package minilm

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// chunkTokens bounds the tokens one goroutine runs through the encoder at
// once: enough rows for the GEMM to reuse each weight panel well, few
// enough that activations (16 MB per goroutine) stay near the caches and
// cancellation is checked often. Measured best between 512 and 2048.
const chunkTokens = 1024

// smallBatchTokens is the tokens per goroutine below which a batch is
// encoded by all goroutines together rather than split between them: the
// weights (43 MB) are then read once instead of once per goroutine.
const smallBatchTokens = 64

// Embed returns one L2-normalised vector per text, in order. Texts longer
// than 256 tokens are truncated. The work is split across GOMAXPROCS
// goroutines; ctx is checked between chunks of work.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
	}
	seqs := make([][]int32, len(texts))
	for i, t := range texts {
		seqs[i] = m.tok.encode(t)
	}
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*Dim)
	for i := range out {
		out[i] = flat[i*Dim : (i+1)*Dim : (i+1)*Dim]
	}
	workers := runtime.GOMAXPROCS(0)
	tokens := 0
	for _, s := range seqs {
		tokens += len(s)
	}
	if workers > 1 && (len(seqs) < workers || tokens < smallBatchTokens*workers) {
		// Too little work to give each goroutine its own sequences: share
		// every matrix product instead.
		if err := m.run(ctx, seqs, share(seqs, 1)[0], out, workers); err != nil {
			return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
		}
		return out, nil
	}
	shares := share(seqs, min(workers, len(seqs)))
	errs := make([]error, len(shares))
	var wg sync.WaitGroup
	for w, idx := range shares {
		wg.Go(func() { errs[w] = m.run(ctx, seqs, idx, out, 1) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
		}
	}
	return out, nil
}

// run encodes the sequences idx in chunks of at most chunkTokens tokens,
// each with par goroutines.
func (m *Model) run(ctx context.Context, seqs [][]int32, idx []int, out [][]float32, par int) error {
	ws, _ := m.workspaces.Get().(*workspace)
	if ws == nil {
		ws = &workspace{}
	}
	defer m.workspaces.Put(ws)
	var batch [][]int32
	var dst [][]float32
	for start := 0; start < len(idx); {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, dst = batch[:0], dst[:0]
		tokens := 0
		for start < len(idx) && (len(batch) == 0 || tokens+len(seqs[idx[start]]) <= chunkTokens) {
			i := idx[start]
			batch = append(batch, seqs[i])
			dst = append(dst, out[i])
			tokens += len(seqs[i])
			start++
		}
		m.enc.encode(ws, par, batch, dst)
	}
	return nil
}

// share splits the sequences among n goroutines with balanced cost: longest
// first, each to the least loaded share (LPT scheduling). Cost is tokens
// plus the quadratic attention term.
func share(seqs [][]int32, n int) [][]int {
	if n <= 1 {
		all := make([]int, len(seqs))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(seqs[b]) - len(seqs[a]) })
	shares := make([][]int, n)
	load := make([]int, n)
	for _, i := range order {
		l := len(seqs[i])
		w := slices.Index(load, slices.Min(load))
		shares[w] = append(shares[w], i)
		load[w] += l*2304 + l*l // linear layers ≈ 2304 attention pairs a token
	}
	return shares
}
