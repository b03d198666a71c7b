package embedder

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// longMemory is ~3,500 characters of a meeting log whose one fact about
// backup key rotation is its last sentence: far past the model's 256
// tokens.
func longMemory() memory.Memory {
	var b strings.Builder
	filler := []string{
		"The frontend team reviewed the new onboarding screens and agreed on the colour palette.",
		"Marketing asked for the launch announcement to be drafted by the end of the month.",
		"The mobile app crash rate dropped after the image cache was rewritten.",
		"Several customers asked for a dark theme in the dashboard and the designers sketched one.",
		"The sales team reported that the enterprise pricing page confuses prospects.",
	}
	for b.Len() < 3400 {
		for _, s := range filler {
			b.WriteString(s)
			b.WriteString(" ")
		}
	}
	b.WriteString("Finally, the security team decided that the backup encryption key is rotated every ninety days.")
	m := fact(b.String(), "acme:long").Memory
	m.Key = "meetings/weekly"
	return m
}

func TestChunkedVectorFindsTheLastChunk(t *testing.T) {
	model := loadModel(t)
	f := newFixture(t)
	m := longMemory()
	texts := embedTexts(m, f.e.cfg.ShortContent, f.e.split)
	if len(texts) < 2 {
		t.Fatalf("%d chunks for %d characters", len(texts), len(m.Content))
	}
	if !strings.Contains(texts[len(texts)-1], "backup encryption key") {
		t.Fatal("the fact is not in the last chunk")
	}
	emb, err := f.e.embedMemory(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	chunked := emb.Vector
	if len(emb.Chunks) != len(texts) {
		t.Fatalf("%d chunk vectors for %d chunks", len(emb.Chunks), len(texts))
	}
	vecs, err := model.Embed(context.Background(), []string{m.Content, "how often is the backup encryption key rotated?"})
	if err != nil {
		t.Fatal(err)
	}
	truncated, query := vecs[0], vecs[1]
	if n := dot(chunked, chunked); math.Abs(n-1) > 1e-4 {
		t.Fatalf("chunked vector has squared norm %g", n)
	}
	withChunks, withTruncation := dot(query, chunked), dot(query, truncated)
	t.Logf("query cosine: chunked %.3f, truncated %.3f", withChunks, withTruncation)
	if withChunks <= withTruncation+0.05 {
		t.Fatalf("chunked cosine %.3f is not clearly above the truncated %.3f", withChunks, withTruncation)
	}
	// The chunk that holds the fact matches better than the mean of all.
	if last := dot(query, emb.Chunks[len(emb.Chunks)-1]); last <= withChunks {
		t.Fatalf("last chunk's cosine %.3f is not above the mean vector's %.3f", last, withChunks)
	}
}

func TestShortMemoryHasNoChunkVectors(t *testing.T) {
	loadModel(t)
	f := newFixture(t)
	emb, err := f.e.embedMemory(context.Background(), fact("User prefers tabs.", "acme:short").Memory)
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Vector) == 0 || emb.Chunks != nil {
		t.Fatalf("short memory: vector of %d dims, %d chunk vectors", len(emb.Vector), len(emb.Chunks))
	}
}

func TestEmbedTexts(t *testing.T) {
	sp, err := chunk.New(chunk.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	short := memory.Memory{Key: "editor/indent", Content: "User prefers tabs."}
	if got := embedTexts(short, 300, sp); len(got) != 1 || got[0] != "editor/indent: User prefers tabs." {
		t.Fatalf("short memory: %q", got)
	}
	mid := memory.Memory{Key: "k", Content: strings.Repeat("word ", 300)}
	if got := embedTexts(mid, 300, sp); len(got) != 1 || got[0] != mid.Content {
		t.Fatalf("memory within one chunk: %d texts", len(got))
	}
	long := longMemory()
	got := embedTexts(long, 300, sp)
	for i, c := range got {
		if n := len([]rune(c)); n > chunk.DefaultMaxChars {
			t.Fatalf("chunk %d has %d characters", i, n)
		}
	}
	if !strings.HasPrefix(long.Content, got[0]) || !strings.HasSuffix(long.Content, got[len(got)-1]) {
		t.Fatal("chunks do not cover the content")
	}
}

func TestMeanVector(t *testing.T) {
	got, err := meanVector([][]float32{{1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := float32(1 / math.Sqrt2); math.Abs(float64(got[0]-want)) > 1e-6 || math.Abs(float64(got[1]-want)) > 1e-6 {
		t.Fatalf("mean %v", got)
	}
	for _, bad := range [][][]float32{nil, {{1, 0}, {-1, 0}}, {{1, 0}, {1}}} {
		if _, err := meanVector(bad); err == nil {
			t.Fatalf("mean of %v accepted", bad)
		}
	}
}
