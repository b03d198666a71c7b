package topics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchItems is n memories of 384 dimensions around `topics` centres, with
// texts drawn from a per-topic vocabulary plus shared filler, like a tenant's
// real memories.
func benchItems(n, topics int, spread float64) []Item {
	rng := rand.New(rand.NewPCG(42, 42))
	const dim = 384
	centres := make([][]float32, topics)
	vocab := make([][]string, topics)
	for c := range centres {
		centres[c] = randUnit(rng, dim)
		for w := 0; w < 6; w++ {
			vocab[c] = append(vocab[c], fmt.Sprintf("term%dx%d", c, w))
		}
	}
	filler := []string{"project", "service", "config", "team", "release", "issue", "build", "review"}
	items := make([]Item, n)
	for i := range items {
		c := rng.IntN(topics)
		var text strings.Builder
		text.WriteString("The user ")
		for w := 0; w < 8; w++ {
			if rng.IntN(2) == 0 {
				text.WriteString(vocab[c][rng.IntN(len(vocab[c]))])
			} else {
				text.WriteString(filler[rng.IntN(len(filler))])
			}
			text.WriteString(" ")
		}
		items[i] = Item{
			ID:         fmt.Sprintf("mem-%06d", i),
			Vector:     around(rng, centres[c], spread),
			Text:       text.String(),
			Domain:     []string{"general", "tool-usage", "user-preferences"}[c%3],
			Importance: rng.Float64(),
		}
	}
	return items
}

func BenchmarkBuild10k(b *testing.B) {
	items := benchItems(10_000, 120, 1.0)
	b.ReportAllocs()
	b.ResetTimer()
	var tree Tree
	for b.Loop() {
		tree = Build("bench", items, DefaultOptions(), built)
	}
	b.ReportMetric(float64(len(tree.Leaves())), "leaves")
	b.ReportMetric(float64(len(tree.Roots)), "roots")
}

func BenchmarkBuild10kNoise(b *testing.B) {
	items := benchItems(10_000, 1, 1e6) // no structure at all: the worst case
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Build("bench", items, DefaultOptions(), built)
	}
}
