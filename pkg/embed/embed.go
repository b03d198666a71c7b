// Package embed turns text into dense vectors.
package embed

import "context"

// Embedder embeds texts; vectors are L2-normalised, so a dot product is the
// cosine similarity.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dim() int
	Model() string
}
