package recall_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/pkg/recall"
)

// TestConcurrentRecallsAnswerAsAlone: recalls running at once, each with
// its hits' vectors in a scratch of the pool, answer exactly as each did
// alone (every score that reads a vector — the fair cosine of a lexical
// hit, turns in context — included), and no answer carries a vector: a
// scratch handed back and lent to the next recall cannot reach it.
func TestConcurrentRecallsAnswerAsAlone(t *testing.T) {
	msgs := filler(40)
	topics := []string{"harbour sailing", "sourdough starter", "kafka consumer lag", "garden tomatoes", "marathon training"}
	for i, topic := range topics {
		s := fmt.Sprintf("s%d", i)
		msgs = append(msgs,
			said{id: s + "-q", session: s, line: "Ana: what do you think about " + topic + "?", role: "user"},
			said{id: s + "-a", session: s, line: "Bo: I spent the week on " + topic + " and it went well", role: "assistant"},
			said{id: s + "-r", session: s, line: "Ana: good idea, I will try that", role: "user"})
	}
	r := conversationRecaller(t, msgs)
	queries := make([]string, 0, 2*len(topics))
	for _, topic := range topics {
		queries = append(queries, "How did "+topic+" go?", topic)
	}
	alone := map[string]recall.Response{}
	for _, q := range queries {
		_, alone[q] = recallIDs(t, r, q)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for round := range 6 {
				q := queries[(g+round)%len(queries)]
				_, got := recallIDs(t, r, q)
				want := alone[q]
				if len(got.Memories) != len(want.Memories) {
					t.Errorf("%q at once: %d memories, alone %d", q, len(got.Memories), len(want.Memories))
					return
				}
				for i, m := range got.Memories {
					w := want.Memories[i]
					if m.Memory.ID != w.Memory.ID || m.Score != w.Score || m.Semantic != w.Semantic || m.Relevance != w.Relevance {
						t.Errorf("%q at once, rank %d: %s score %v semantic %v; alone %s score %v semantic %v",
							q, i, m.Memory.ID, m.Score, m.Semantic, w.Memory.ID, w.Score, w.Semantic)
					}
					if m.Memory.Vector != nil || m.Memory.ChunkVectors != nil {
						t.Errorf("%q: %s came back with its vectors", q, m.Memory.ID)
					}
				}
			}
		})
	}
	wg.Wait()
}
