package cli

import (
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/internal/bench"
	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/embedder"
)

var (
	testModelOnce sync.Once
	testModelVal  *minilm.Model
	testModelErr  error
)

// testModel is the built-in model, loaded once for the package's tests.
func testModel(t *testing.T) *minilm.Model {
	t.Helper()
	testModelOnce.Do(func() { testModelVal, testModelErr = minilm.Load() })
	if testModelErr != nil {
		t.Fatal(testModelErr)
	}
	return testModelVal
}

// modelInputs is how many texts the embedder embeds content as: its
// chunks, or the whole when it fits one.
func modelInputs(t *testing.T, cfg embedder.Config, content string) int {
	t.Helper()
	sp, err := chunk.New(cfg.Chunk)
	if err != nil {
		t.Fatal(err)
	}
	return max(1, len(sp.Split(content)))
}

func TestBenchEmbedLongPhase(t *testing.T) {
	res := runBench(t, "embed", "--batch", "4", "--batches", "1", "--queries", "2", "--long-messages", "3")
	long, ok := res["long"].(map[string]any)
	if !ok {
		t.Fatalf("no long phase in %v", res)
	}
	if long["messages"] != 3.0 {
		t.Errorf("messages = %v, want 3", long["messages"])
	}
	var chunks float64
	cfg := bench.DefaultEmbedderConfig(testModel(t))
	for i := range 3 {
		chunks += float64(modelInputs(t, cfg, bench.LongMessage(i)))
	}
	if long["chunks"] != chunks {
		t.Errorf("chunks = %v, want %v as the embedder chunks the messages", long["chunks"], chunks)
	}
	if tpc := positive(t, long, "tokens_per_chunk"); tpc > 256 {
		t.Errorf("tokens_per_chunk = %v, more than the model reads", tpc)
	}
	for _, k := range []string{"tokens_per_sec", "kernel_tokens_per_sec", "messages_per_sec", "short_tokens_per_sec", "ratio", "callers"} {
		positive(t, long, k)
	}
	positive(t, res, "short_tokens_per_sec")
}
