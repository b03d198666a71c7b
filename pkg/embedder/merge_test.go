package embedder

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

const (
	mergeOld    = "User prefers dark mode in the editor."
	mergeNew    = "User prefers dark mode in the editor, with the Solarized theme."
	mergeResult = "User prefers dark mode in the editor, with the Solarized theme (since 2024)."
	// mergeThird is close to mergeResult but below the duplicate rule.
	mergeThird       = "User prefers the dark Solarized theme in the editor at 14pt."
	mergeThirdResult = "User prefers dark mode in the editor, with the Solarized theme at 14pt (since 2024)."
)

func newMergeFixture(t *testing.T) (fixture, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t)
	client, err := llm.New(llm.Config{URL: srv.URL(), Model: "test-model", MaxRetries: 1, Timeout: 5 * time.Second},
		nil, nil, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, WithLLM(client)), srv
}

func TestInsertMerge(t *testing.T) {
	tests := []struct {
		name     string
		reply    func(srv *llmtest.Server)
		memories int
		outcome  string // of recollect_embedder_insert_merge_total
	}{
		{"same: merged in place", func(s *llmtest.Server) {
			s.Push(llmtest.JSON(map[string]any{"same": true, "merged": mergeResult}))
		}, 1, "merged"},
		{"same, fenced with prose", func(s *llmtest.Server) {
			s.Push(llmtest.Text("Here you go:\n```json\n{\"same\": true, \"merged\": \"" + mergeResult + "\"}\n```"))
		}, 1, "merged"},
		{"not the same: inserted", func(s *llmtest.Server) {
			s.Push(llmtest.JSON(map[string]any{"same": false}))
		}, 2, "distinct"},
		{"malformed answer: inserted", func(s *llmtest.Server) {
			s.Push(llmtest.Text("They look like the same preference to me."))
		}, 2, "failed"},
		{"same without a statement: inserted", func(s *llmtest.Server) {
			s.Push(llmtest.JSON(map[string]any{"same": true, "merged": "  "}))
		}, 2, "failed"},
		{"llm down: inserted", func(s *llmtest.Server) { s.Close() }, 2, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newMergeFixture(t)
			first, second := fact(mergeOld, "acme:e1"), fact(mergeNew, "acme:e2")
			second.Memory.CreatedAt = first.Memory.CreatedAt.Add(time.Hour)
			if err := f.handle(t, first); err != nil {
				t.Fatal(err)
			}
			tt.reply(srv)
			if err := f.handle(t, second); err != nil {
				t.Fatal(err)
			}
			mems := f.all(t)
			if len(mems) != tt.memories {
				t.Fatalf("%d memories, want %d: %+v", len(mems), tt.memories, mems)
			}
			if got := counterValue(t, f.e.merges.WithLabelValues(tt.outcome)); got != 1 {
				t.Fatalf("insert merge %s counted %g times, want 1", tt.outcome, got)
			}
			if tt.outcome != "failed" || !strings.Contains(tt.name, "down") {
				reqs := srv.Requests()
				if len(reqs) != 1 || !strings.Contains(reqs[0].User(), mergeOld) || !strings.Contains(reqs[0].User(), mergeNew) {
					t.Fatalf("llm requests %+v, want one naming both facts", reqs)
				}
			}
			if tt.memories == 2 {
				return
			}
			m := mems[0]
			if m.ID != first.Memory.ID || m.Content != mergeResult || m.RepetitionCount != 2 ||
				strings.Join(m.SourceIDs, ",") != "acme:e1,acme:e2,"+mergeToken("acme:e2", second.Memory.ID) || !m.CreatedAt.Equal(first.Memory.CreatedAt) ||
				!m.ModifiedAt.Equal(second.Memory.CreatedAt) || m.EmbeddingModel != "all-MiniLM-L6-v2" {
				t.Fatalf("merged memory %+v", m)
			}
			want, err := loadModel(t).Embed(context.Background(), []string{mergeResult})
			if err != nil {
				t.Fatal(err)
			}
			if c := dot(m.Vector, want[0]); c < 0.9999 {
				t.Fatalf("vector is not the merged statement's (cosine %g)", c)
			}
			// Redelivery of the merged fact: no second judgement, no second count.
			if err := f.handle(t, second); err != nil {
				t.Fatal(err)
			}
			if mems := f.all(t); len(mems) != 1 || mems[0].RepetitionCount != 2 || len(srv.Requests()) != 1 {
				t.Fatalf("after redelivery: %d memories, repetition %d, %d llm calls", len(mems), mems[0].RepetitionCount, len(srv.Requests()))
			}
			// Another fact of the same event is judged and merged too.
			third := fact(mergeThird, "acme:e2")
			srv.Push(llmtest.JSON(map[string]any{"same": true, "merged": mergeThirdResult}))
			if err := f.handle(t, third); err != nil {
				t.Fatal(err)
			}
			if mems := f.all(t); len(mems) != 1 || mems[0].Content != mergeThirdResult || mems[0].RepetitionCount != 3 || len(srv.Requests()) != 2 {
				t.Fatalf("second fact of one event: %d memories (%+v), %d llm calls; want it merged", len(mems), mems, len(srv.Requests()))
			}
		})
	}
}

func TestNoMergeWithoutLLMOrOutsideTheBand(t *testing.T) {
	f := newFixture(t) // no LLM: the close pair is two memories
	for _, m := range []memory.FactMessage{fact(mergeOld, "acme:e1"), fact(mergeNew, "acme:e2")} {
		if err := f.handle(t, m); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.all(t)); n != 2 {
		t.Fatalf("%d memories without an llm, want 2", n)
	}
	// With an LLM, a fact far from every memory is inserted unasked (an
	// unscripted request would fail the test).
	g, srv := newMergeFixture(t)
	for _, m := range []memory.FactMessage{fact(mergeOld, "acme:e1"), fact("Always run make test before committing.", "acme:e2")} {
		if err := g.handle(t, m); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(g.all(t)); n != 2 || len(srv.Requests()) != 0 {
		t.Fatalf("%d memories, %d llm calls; want 2, 0", n, len(srv.Requests()))
	}
}

// TestInsertMergeRespectsDetails: a pair whose details conflict is never
// judged by the LLM (an unscripted request would fail the test), and a
// merged statement that drops or changes a detail of either is refused:
// the fact is inserted and the memory left as it was.
func TestInsertMergeRespectsDetails(t *testing.T) {
	tests := []struct {
		name, first, second string
		merged              string // the LLM's answer; "" for none expected
	}{
		// cosine 0.87: inside the merge band, below the screen.
		{"negation is never judged", "The user likes green tea in the morning.", "The user does not like green tea in the morning.", ""},
		{"another name is never judged", "The user's editor for writing Go code is Vim.", "The user's editor for writing Go code is Helix.", ""},
		{"a merge dropping a name is refused", mergeOld, mergeNew, mergeOld},
		{"a merge changing a number is refused", "The api service uses Postgres in production.", "The api service uses Postgres 16 in production.",
			"The api service uses Postgres 15 in production."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newMergeFixture(t)
			if err := f.handle(t, fact(tt.first, "acme:e1")); err != nil {
				t.Fatal(err)
			}
			if tt.merged != "" {
				srv.Push(llmtest.JSON(map[string]any{"same": true, "merged": tt.merged}))
			}
			if err := f.handle(t, fact(tt.second, "acme:e2")); err != nil {
				t.Fatal(err)
			}
			mems := f.all(t)
			if len(mems) != 2 {
				t.Fatalf("%d memories, want 2: %+v", len(mems), mems)
			}
			for _, m := range mems {
				if m.Content != tt.first && m.Content != tt.second || m.RepetitionCount != 1 {
					t.Fatalf("memory changed: %+v", m)
				}
			}
			wantCalls, lost := 0, 0.0
			if tt.merged != "" {
				wantCalls, lost = 1, 1
			}
			if n := len(srv.Requests()); n != wantCalls {
				t.Fatalf("%d llm calls, want %d", n, wantCalls)
			}
			if got := counterValue(t, f.e.merges.WithLabelValues("lost_detail")); got != lost {
				t.Fatalf("lost_detail counted %g times, want %g", got, lost)
			}
		})
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
