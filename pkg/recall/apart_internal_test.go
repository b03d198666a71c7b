package recall

import (
	"fmt"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestChannelsApart: two channels whose first ten hits share at most one
// memory are apart; two sharing two are not; fewer than ten hits prove
// nothing.
func TestChannelsApart(t *testing.T) {
	hits := func(prefix string, n int, shared ...string) []store.Hit {
		var out []store.Hit
		for _, id := range shared {
			out = append(out, store.Hit{Memory: memory.Memory{ID: id}})
		}
		for i := len(out); i < n; i++ {
			out = append(out, store.Hit{Memory: memory.Memory{ID: fmt.Sprintf("%s%d", prefix, i)}})
		}
		return out
	}
	if !channelsApart(hits("d", 12, "x"), hits("l", 12, "x")) {
		t.Error("one shared of ten: want apart")
	}
	if channelsApart(hits("d", 12, "x", "y"), hits("l", 12, "y", "x")) {
		t.Error("two shared of ten: want not apart")
	}
	if channelsApart(hits("d", 9), hits("l", 12)) {
		t.Error("nine dense hits: too few to say")
	}
	// Shared beyond the first ten does not count.
	lex := hits("l", 12)
	lex[11] = store.Hit{Memory: memory.Memory{ID: "d0"}}
	if !channelsApart(hits("d", 12), lex) {
		t.Error("a memory shared only at rank 12: want apart")
	}
}

// TestWeightsForApartChannels: a long question over apart channels leans
// on the lexical channel, unless it names a time; a short one keeps its
// weights, already at least as lexical.
func TestWeightsForApartChannels(t *testing.T) {
	apart := []candidate{{}, {apart: true}}
	long := "How did we fix the import cycle in metrics-exporter?"
	if got := weightsFor(long, apart); got != apartWeights {
		t.Errorf("long question, apart channels: %+v, want %+v", got, apartWeights)
	}
	if got := weightsFor(long, []candidate{{}, {}}); got != AdaptiveWeights(long) {
		t.Errorf("long question, channels agreeing: %+v, want the adaptive %+v", got, AdaptiveWeights(long))
	}
	dated := "Which error did I run into on May 15, and how did we fix it?"
	if got := weightsFor(dated, apart); got != AdaptiveWeights(dated) {
		t.Errorf("question naming a date: %+v, want the adaptive %+v", got, AdaptiveWeights(dated))
	}
	short := "metrics-exporter import cycle"
	if got := weightsFor(short, apart); got != AdaptiveWeights(short) {
		t.Errorf("short question: %+v, want the adaptive %+v", got, AdaptiveWeights(short))
	}
}
