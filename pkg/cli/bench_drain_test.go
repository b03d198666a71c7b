package cli

import (
	"testing"

	"github.com/recollect-dev/recollect/internal/bench"
)

// TestBenchDrainCountsTheBacklog drains a small backlog of short "long"
// messages (1-2 KB of code: a few chunks each, since the model reads about
// 700 characters of code) and checks that the harness counts every message
// once and finds each one stored, with as many chunks as the embedder makes.
func TestBenchDrainCountsTheBacklog(t *testing.T) {
	const n, maxBytes = 12, 2048
	res := runBench(t, "drain", "--messages", "12", "--max-bytes", "2048", "--timeout", "3m")
	cfg := bench.DefaultEmbedderConfig(testModel(t))
	chunks, chunked := 0, 0
	for i := range n {
		k := modelInputs(t, cfg, bench.LongMessageMax(i, maxBytes))
		chunks += k
		if k > 1 {
			chunked++
		}
	}
	if chunked == 0 || chunks <= n {
		t.Fatalf("%d of %d messages chunked into %d chunks: the test wants chunked messages", chunked, n, chunks)
	}
	want := map[string]float64{"messages": n, "chunks": float64(chunks), "stored_memories": n, "memories": n, "chunked": float64(chunked)}
	for k, v := range want {
		if res[k] != v {
			t.Errorf("%s = %v, want %v", k, res[k], v)
		}
	}
	if got := res["inserted"].(float64) + res["reinforced"].(float64) + res["updated"].(float64); got != n {
		t.Errorf("stored events: %v inserted, %v reinforced, %v updated; want %d in all", res["inserted"], res["reinforced"], res["updated"], n)
	}
	for _, k := range []string{"drain_sec", "messages_per_sec", "tokens_per_sec", "tokens_per_chunk", "p50_ms", "p99_ms"} {
		positive(t, res, k)
	}
	if p50, p99, all := res["p50_ms"].(float64), res["p99_ms"].(float64), res["drain_sec"].(float64)*1000; p50 > p99 || p99 > all+1 {
		t.Errorf("p50 %v ms, p99 %v ms, drain %v ms: want p50 <= p99 <= drain", p50, p99, all)
	}
}

// TestBenchDrainStreamedTurns drains a backlog of streamed turns: every
// turn is kept as one transcript memory, and the storage per turn is
// measured.
func TestBenchDrainStreamedTurns(t *testing.T) {
	res := runBench(t, "drain", "--turns", "--messages", "20", "--timeout", "3m")
	if res["transcripts"] != float64(20) || res["messages"] != float64(20) || res["store_bytes_per_message"].(float64) <= 0 {
		t.Fatalf("drain of 20 turns: %v", res)
	}
}
