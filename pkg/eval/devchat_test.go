package eval_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/devchatgen"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/eval"
)

// tinyDevChat generates a small set (two conversations of three short
// sessions) and writes it gzip-compressed.
func tinyDevChat(t *testing.T) (string, *eval.DevChat) {
	t.Helper()
	o := devchatgen.DefaultOptions()
	o.Seed, o.Conversations, o.MinSessions, o.MaxSessions, o.MinTurns, o.MaxTurns = 7, 2, 3, 3, 4, 6
	set, err := devchatgen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.json.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := devchatgen.WriteGzip(f, set); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, set
}

// TestRunDevChat runs the evaluator end to end against a real in-process
// Recollect and checks the report against the set and the dump.
func TestRunDevChat(t *testing.T) {
	a := clienttest.Start(t)
	data, set := tinyDevChat(t)
	out := filepath.Join(t.TempDir(), "questions.jsonl")
	cfg := eval.DevChatConfig{Config: eval.Config{Data: data, K: 10, TenantPrefix: "devchat-", WaitTimeout: 2 * time.Minute,
		Settle: 30 * time.Second, Out: out}, AsOf: eval.AsOfAuto}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := eval.RunDevChat(ctx, cfg, a.Web().URL(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}

	turns, questions, updates, byCat := 0, 0, 0, map[string]int{}
	for _, c := range set.Conversations {
		for _, s := range c.Sessions {
			turns += len(s.Turns)
		}
		for _, q := range c.Questions {
			questions++
			byCat[q.Category]++
			if q.Category == eval.UpdateCategory {
				updates++
			}
		}
	}
	if rep.Conversations != 2 || rep.Turns != turns || rep.Memories == 0 || rep.Memories+rep.TurnsMerged+rep.TurnsMissing < turns {
		t.Fatalf("report %d conversations, %d turns, %d memories (%d merged, %d missing); the set has 2 and %d turns",
			rep.Conversations, rep.Turns, rep.Memories, rep.TurnsMerged, rep.TurnsMissing, turns)
	}
	if rep.Questions != questions {
		t.Fatalf("scored %d questions, the set has %d", rep.Questions, questions)
	}
	for i, name := range eval.DevChatCategories {
		got, ok := rep.ByCategory[strconv.Itoa(i+1)]
		if byCat[name] == 0 && !ok {
			continue // a category the set does not ask is not reported
		}
		if got.Name != name || got.Questions != byCat[name] {
			t.Errorf("category %d = %+v, want %s with %d questions", i+1, got, name, byCat[name])
		}
	}
	if rep.BM25 == nil || rep.BM25.Questions != questions || rep.BM25.RecallAny10 <= 0 || rep.BM25.Updates.Questions != updates {
		t.Fatalf("bm25 baseline = %+v, want %d questions and %d updates scored", rep.BM25, questions, updates)
	}
	if rep.Newer[eval.UpdateCategory] != rep.Updates {
		t.Fatalf("newer by category %+v, updates %+v", rep.Newer, rep.Updates)
	}
	u := rep.Updates
	if u.Questions != updates || u.Both+u.NewerOnly+u.OlderOnly+u.Neither != updates || u.NewerAboveOlder < 0 || u.NewerAboveOlder > 1 {
		t.Fatalf("updates = %+v, the set has %d update questions", u, updates)
	}
	// Each tenant holds a few dozen turns and most questions name their
	// project and subject: recall finds the evidence for most of them.
	if rep.RecallAny10 < 0.5 || rep.NDCG10 <= 0 || rep.NDCG10 > 1 || rep.RecallAll10 > rep.RecallAny10 {
		t.Fatalf("recall_any@10 %v, recall_all@10 %v, ndcg@10 %v", rep.RecallAny10, rep.RecallAll10, rep.NDCG10)
	}
	if rep.P50Ms <= 0 || rep.P99Ms < rep.P50Ms || rep.QPS <= 0 {
		t.Fatalf("latency p50 %v, p99 %v, qps %v", rep.P50Ms, rep.P99Ms, rep.QPS)
	}
	sent := rep.AsOf == "sent"
	if !sent && rep.AsOf != "not sent: the server refused the field" {
		t.Fatalf("as_of = %q", rep.AsOf)
	}

	checkDump(t, out, set, questions, sent)
}

func checkDump(t *testing.T, path string, set *eval.DevChat, questions int, asOfSent bool) {
	t.Helper()
	asOf := map[string]time.Time{}
	for _, c := range set.Conversations {
		asOf[c.ID] = c.AsOf
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var q struct {
			Conversation    string     `json:"conversation"`
			Category        string     `json:"category"`
			Query           string     `json:"query"`
			AsOf            *time.Time `json:"as_of"`
			Expected        []string   `json:"expected"`
			Stale           []string   `json:"stale"`
			Got             [][]string `json:"got"`
			ExpectedRanks   []int      `json:"expected_ranks"`
			StaleRanks      []int      `json:"stale_ranks"`
			NewerAboveOlder *bool      `json:"newer_above_older"`
			RecallAny10     float64    `json:"recall_any@10"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		if q.Query == "" || len(q.Expected) == 0 || len(q.Got) == 0 || len(q.Got) > 10 || len(q.ExpectedRanks) != len(q.Expected) || len(q.StaleRanks) != len(q.Stale) {
			t.Fatalf("line %d: %+v", lines+1, q)
		}
		hit := 0.0
		for i, r := range q.ExpectedRanks {
			if r > 0 {
				hit = 1
				if !slices.Contains(q.Got[r-1], q.Expected[i]) {
					t.Fatalf("line %d: rank %d of %s, but got %v there", lines+1, r, q.Expected[i], q.Got[r-1])
				}
			}
		}
		if hit != q.RecallAny10 {
			t.Fatalf("line %d: ranks %v but recall_any@10 %v", lines+1, q.ExpectedRanks, q.RecallAny10)
		}
		if (q.Category == eval.UpdateCategory) != (q.NewerAboveOlder != nil) {
			t.Fatalf("line %d: category %s, newer_above_older %v", lines+1, q.Category, q.NewerAboveOlder)
		}
		if asOfSent != (q.AsOf != nil) || q.AsOf != nil && !q.AsOf.Equal(asOf[q.Conversation]) {
			t.Fatalf("line %d: as_of %v, sent %v, conversation's %v", lines+1, q.AsOf, asOfSent, asOf[q.Conversation])
		}
	}
	if lines != questions {
		t.Fatalf("%d lines, want %d", lines, questions)
	}
}

func TestParseDevChatRejects(t *testing.T) {
	good := func() eval.DevChat {
		ts := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
		return eval.DevChat{Conversations: []eval.DevChatConversation{{ID: "c", AsOf: ts.Add(time.Hour),
			Sessions: []eval.DevChatSession{{Number: 1, Start: ts, Turns: []eval.DevChatTurn{
				{ID: "D1:1", Role: "user", Speaker: "Ann", TS: ts, Text: "port 8080"},
				{ID: "D1:2", Role: "assistant", Speaker: "Sage", TS: ts.Add(time.Minute), Text: "ok"}}}},
			Questions: []eval.DevChatQuestion{{ID: "q1", Category: "fact", Question: "port?", Evidence: []string{"D1:1"}}}}}}
	}
	encode := func(s eval.DevChat) []byte {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if _, err := eval.ParseDevChat(encode(good())); err != nil {
		t.Fatalf("good set refused: %v", err)
	}
	for name, change := range map[string]func(*eval.DevChat){
		"no conversations": func(s *eval.DevChat) { s.Conversations = nil },
		"turn id":          func(s *eval.DevChat) { s.Conversations[0].Sessions[0].Turns[1].ID = "D1:3" },
		"role":             func(s *eval.DevChat) { s.Conversations[0].Sessions[0].Turns[0].Role = "system" },
		"time goes back":   func(s *eval.DevChat) { s.Conversations[0].Sessions[0].Turns[1].TS = time.Time{} },
		"as_of too early":  func(s *eval.DevChat) { s.Conversations[0].AsOf = time.Time{} },
		"category":         func(s *eval.DevChat) { s.Conversations[0].Questions[0].Category = "trivia" },
		"unknown evidence": func(s *eval.DevChat) { s.Conversations[0].Questions[0].Evidence = []string{"D2:1"} },
		"unknown stale":    func(s *eval.DevChat) { s.Conversations[0].Questions[0].Stale = []string{"D9:9"} },
		"no evidence":      func(s *eval.DevChat) { s.Conversations[0].Questions[0].Evidence = nil },
	} {
		t.Run(name, func(t *testing.T) {
			s := good()
			change(&s)
			if _, err := eval.ParseDevChat(encode(s)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
