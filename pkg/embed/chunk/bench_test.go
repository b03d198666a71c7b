package chunk

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSplit splits content at the memory size limit (8192 characters).
func BenchmarkSplit(b *testing.B) {
	text := randomText(rand.New(rand.NewPCG(1, 2)), 8192)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if len(Split(text)) < 2 {
			b.Fatal("expected several chunks")
		}
	}
}
