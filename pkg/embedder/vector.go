package embedder

import (
	"context"
	"fmt"
	"math"

	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// embedTexts is what a memory is embedded as: one text ("key: content" for
// a short memory, see EmbedText), or, when its content is longer than a
// chunk, the content's chunks (Nebo's 1600 characters with 320 of overlap,
// on sentence boundaries). The model reads at most 256 tokens of a text;
// chunking lets everything past that shape the memory's vector.
func embedTexts(m memory.Memory, short int, sp *chunk.Splitter) []string {
	chunks := sp.Split(m.Content)
	if len(chunks) <= 1 {
		return []string{EmbedText(m, short)}
	}
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Text
	}
	return out
}

// meanVector is the L2-normalised mean of unit vectors: the direction
// closest on average to every chunk.
func meanVector(vecs [][]float32) ([]float32, error) {
	if len(vecs) == 1 {
		return vecs[0], nil
	}
	if len(vecs) == 0 {
		return nil, fmt.Errorf("no vectors to average")
	}
	sum := make([]float64, len(vecs[0]))
	for i, v := range vecs {
		if len(v) != len(sum) {
			return nil, fmt.Errorf("chunk %d vector has %d dims, chunk 0 has %d", i, len(v), len(sum))
		}
		for j, x := range v {
			sum[j] += float64(x)
		}
	}
	var n float64
	for _, x := range sum {
		n += x * x
	}
	if n == 0 {
		return nil, fmt.Errorf("chunk vectors cancel out")
	}
	n = math.Sqrt(n)
	out := make([]float32, len(sum))
	for j, x := range sum {
		out[j] = float32(x / n)
	}
	return out, nil
}

// Vectorizer embeds memories the way the embedder stores them: a short
// memory as "key: content", a long one chunked with the chunks' vectors
// averaged into its vector and kept as its chunk vectors. Other writers of vectors (import) use it so that a memory gets
// the same vector whichever path stored it.
type Vectorizer struct {
	embed func(ctx context.Context, texts []string) ([][]float32, error)
	short int
	split *chunk.Splitter
}

// NewVectorizer embeds with model under cfg's short-content bound and
// chunking.
func NewVectorizer(model embed.Embedder, cfg Config) (*Vectorizer, error) {
	split, err := chunk.New(cfg.Chunk)
	if err != nil {
		return nil, fmt.Errorf("vectorizer: %w", err)
	}
	return &Vectorizer{embed: model.Embed, short: cfg.ShortContent, split: split}, nil
}

// Embedding is what a memory is stored with: its vector (the mean of its
// chunks' vectors for a long memory) and, for a long memory, each chunk's
// vector, by which recall finds it.
type Embedding struct {
	Vector []float32
	Chunks [][]float32
}

// Apply sets m's Vector and ChunkVectors.
func (e Embedding) Apply(m *memory.Memory) { m.Vector, m.ChunkVectors = e.Vector, e.Chunks }

// Chunked reports whether m is embedded by its chunks (its content is
// longer than one chunk), so that it should carry ChunkVectors.
func (v *Vectorizer) Chunked(m memory.Memory) bool { return len(v.split.Split(m.Content)) > 1 }

// Vectors returns one unit vector per memory, every chunk of every memory
// embedded in one call.
func (v *Vectorizer) Vectors(ctx context.Context, mems []memory.Memory) ([][]float32, error) {
	embs, err := v.Embeddings(ctx, mems)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(embs))
	for i, e := range embs {
		out[i] = e.Vector
	}
	return out, nil
}

// Fill embeds mems and sets each one's Vector and ChunkVectors in place.
func (v *Vectorizer) Fill(ctx context.Context, mems []memory.Memory) error {
	embs, err := v.Embeddings(ctx, mems)
	if err != nil {
		return err
	}
	for i := range mems {
		embs[i].Apply(&mems[i])
	}
	return nil
}

// Embeddings returns each memory's Embedding, every chunk of every memory
// embedded in one call.
func (v *Vectorizer) Embeddings(ctx context.Context, mems []memory.Memory) ([]Embedding, error) {
	var texts []string
	spans := make([][2]int, len(mems))
	for i, m := range mems {
		t := embedTexts(m, v.short, v.split)
		spans[i] = [2]int{len(texts), len(texts) + len(t)}
		texts = append(texts, t...)
	}
	vecs, err := v.embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed %d texts: the model returned %d vectors", len(texts), len(vecs))
	}
	out := make([]Embedding, len(mems))
	for i, sp := range spans {
		chunks := vecs[sp[0]:sp[1]:sp[1]]
		if out[i].Vector, err = meanVector(chunks); err != nil {
			return nil, fmt.Errorf("average chunks of memory %s: %w", mems[i].ID, err)
		}
		if len(chunks) > 1 {
			out[i].Chunks = chunks
		}
	}
	return out, nil
}

// embedMemories returns each memory's Embedding, every chunk of every
// memory embedded through the shared batcher.
func (e *Embedder) embedMemories(ctx context.Context, mems []memory.Memory) ([]Embedding, error) {
	v := Vectorizer{embed: e.batch.EmbedAll, short: e.cfg.ShortContent, split: e.split}
	return v.Embeddings(ctx, mems)
}

// embedMemory returns the Embedding of one memory.
func (e *Embedder) embedMemory(ctx context.Context, m memory.Memory) (Embedding, error) {
	embs, err := e.embedMemories(ctx, []memory.Memory{m})
	if err != nil {
		return Embedding{}, err
	}
	return embs[0], nil
}
