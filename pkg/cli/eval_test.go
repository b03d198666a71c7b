package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/eval"
)

// evalTurn and evalSample build a LoCoMo-shaped file.
type evalTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption,omitempty"`
}

type evalQA struct {
	Question string   `json:"question"`
	Answer   string   `json:"answer,omitempty"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

func evalSample(id, a, b string, s1, s2 []evalTurn, qa []evalQA) map[string]any {
	return map[string]any{
		"sample_id": id,
		"conversation": map[string]any{
			"speaker_a": a, "speaker_b": b,
			"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": s1,
			"session_2_date_time": "10:04 am on 3 June, 2023", "session_2": s2,
		},
		"qa": qa, "event_summary": map[string]any{}, "observation": map[string]any{}, "session_summary": map[string]any{},
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTinyLoCoMo writes two short conversations with their questions.
func writeTinyLoCoMo(t *testing.T, dir string) string {
	data := filepath.Join(dir, "tiny-locomo.json")
	writeJSONFile(t, data, []any{
		evalSample("conv-26", "Ann", "Bob",
			[]evalTurn{
				{"Ann", "D1:1", "I adopted a golden retriever puppy named Max last week.", ""},
				{"Bob", "D1:2", "Congratulations! I started learning to play the cello.", ""},
				{"Ann", "D1:3", "My sister is getting married in Lisbon next spring.", ""},
				{"Bob", "D1:4", "I ran my first marathon in Berlin and finished in four hours.", ""},
			},
			[]evalTurn{
				{"Ann", "D2:1", "I quit my job at the bank to open a bakery downtown.", ""},
				{"Bob", "D2:2", "My teacher says I should join the community orchestra.", "a photo of a cello on a stand"},
				{"Ann", "D2:3", "Max chewed up my favourite pair of running shoes.", ""},
				{"Bob", "D2:4", "We are planning a hiking trip to the Swiss Alps in August.", ""},
			},
			[]evalQA{
				{"What is the name of Ann's dog?", "Max", []string{"D1:1", "D2:3"}, 1},
				{"Which instrument is Bob learning to play?", "cello", []string{"D1:2; D2:2"}, 4}, // malformed: repaired
				{"Where did Bob run a marathon?", "Berlin", []string{"D1:4"}, 2},
				{"What business did Ann open after quitting the bank?", "a bakery", []string{"D2:1"}, 4},
				{"What did Ann's cat eat?", "", nil, 5},                     // adversarial
				{"Where will Bob go hiking?", "the Alps", []string{"D"}, 3}, // no usable evidence
			}),
		evalSample("conv-30", "Cara", "Dan",
			[]evalTurn{
				{"Cara", "D1:1", "I planted tomatoes and basil in my garden.", ""},
				{"Dan", "D1:2", "I bought an old motorbike that I want to restore.", ""},
			},
			[]evalTurn{
				{"Cara", "D2:1", "The tomatoes in my garden got blight and died.", ""},
				{"Dan", "D2:2", "The motorbike engine finally started today.", ""},
			},
			[]evalQA{
				{"What did Cara plant in her garden?", "tomatoes and basil", []string{"D1:1", "D2:1"}, 1},
				{"What vehicle is Dan restoring?", "a motorbike", []string{"D1:2"}, 4},
				{"What is Dan's favourite song?", "", []string{"D9:9"}, 4}, // evidence names no turn
			}),
	})
	return data
}

func TestEvalLoCoMoCommand(t *testing.T) {
	dir := t.TempDir()
	data := writeTinyLoCoMo(t, dir)
	writeJSONFile(t, filepath.Join(dir, "locomo10_audit_errors.json"), []eval.AuditEntry{
		{QuestionID: "locomo_0_qa3", Question: "What business did Ann open after quitting the bank?", Category: 4,
			ErrorType: "WRONG_CITATION", CitedEvidence: []string{"D2:1"}, CorrectEvidence: []string{"D2:1"}},
		{QuestionID: "locomo_1_qa0", Question: "What did Cara plant in her garden?", Category: 1,
			ErrorType: "INCOMPLETE", CitedEvidence: []string{"D1:1", "D2:1"}, CorrectEvidence: []string{"D1:1"}},
	})
	perQuestion := filepath.Join(dir, "questions.jsonl")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	root := NewRoot()
	var out, stderr bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&stderr)
	root.SetArgs([]string{"eval", "locomo", "--data", data, "--json", "--out", perQuestion, "--settle", "30s", "--data-dir", filepath.Join(dir, "server")})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() != 0 { // a pipe: the report on stdout, no progress
		t.Fatalf("eval in a pipe wrote to stderr: %q", stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("decode report: %v\n%s", err, out.String())
	}

	if rep.Conversations != 2 || rep.Turns != 12 || rep.Memories != 12 || rep.TurnsMissing != 0 || rep.TurnsMerged != 0 {
		t.Fatalf("stored %d conversations, %d turns, %d memories (%d missing, %d merged); want 2, 12, 12, 0, 0",
			rep.Conversations, rep.Turns, rep.Memories, rep.TurnsMissing, rep.TurnsMerged)
	}
	if rep.Questions != 6 || rep.Skipped.Adversarial != 1 || rep.Skipped.NoEvidence != 2 {
		t.Fatalf("scored %d, skipped %+v; want 6 scored, 1 adversarial, 2 without evidence", rep.Questions, rep.Skipped)
	}
	if rep.Evidence != (eval.EvidenceStats{Repaired: 1, Dropped: 1, Unknown: 1}) {
		t.Fatalf("evidence stats = %+v", rep.Evidence)
	}
	// Every tenant holds at most 8 turns, so k=10 recalls all of them that
	// pass the relevance floor: each question's closest evidence turn is in.
	if rep.RecallAny10 != 1 {
		t.Fatalf("recall_any@10 = %v, want 1", rep.RecallAny10)
	}
	if rep.NDCG10 <= 0 || rep.NDCG10 > 1 {
		t.Fatalf("ndcg@10 = %v", rep.NDCG10)
	}
	if c := rep.ByCategory["1"]; c.Name != "multi-hop" || c.Questions != 2 {
		t.Fatalf("category 1 = %+v", c)
	}
	if c := rep.ByCategory["4"]; c.Questions != 3 {
		t.Fatalf("category 4 = %+v (the question without a known evidence turn is not scored)", c)
	}
	if rep.Audited != 2 || rep.AuditUnmatched != 0 || rep.WithoutAudited == nil || rep.WithoutAudited.Questions != 4 ||
		rep.AuditCorrected == nil || rep.AuditCorrected.Questions != 6 {
		t.Fatalf("audit: audited %d, unmatched %d, without %+v, corrected %+v", rep.Audited, rep.AuditUnmatched, rep.WithoutAudited, rep.AuditCorrected)
	}
	if rep.P50Ms <= 0 || rep.P99Ms < rep.P50Ms || rep.QPS <= 0 {
		t.Fatalf("latency p50 %v, p99 %v, qps %v", rep.P50Ms, rep.P99Ms, rep.QPS)
	}
	if rep.Settings["recall-per-domain"] != float64(10) {
		t.Fatalf("settings = %v, want recall-per-domain 10", rep.Settings)
	}

	f, err := os.Open(perQuestion)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var q struct {
			Sample   string     `json:"sample"`
			Evidence []string   `json:"evidence"`
			Recalled [][]string `json:"recalled"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		if len(q.Evidence) == 0 || len(q.Recalled) == 0 || len(q.Recalled) > 8 {
			t.Fatalf("line %d: %+v", lines+1, q)
		}
	}
	if lines != 6 {
		t.Fatalf("%d per-question lines, want 6", lines)
	}
}

// TestEvalProgressOnTerminal: with stderr a terminal, each stage draws its
// bar there, finished, and stdout holds the report alone.
func TestEvalProgressOnTerminal(t *testing.T) {
	a := clienttest.Start(t)
	data := writeTinyLoCoMo(t, t.TempDir())
	stderr := &syncBuffer{}
	asTerminal(t, stderr)
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(stderr)
	root.SetArgs([]string{"eval", "locomo", "--url", a.Web().URL(), "--data", data, "--samples", "conv-30", "--audit", "none", "--settle", "30s"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	e := stderr.String()
	for _, want := range []string{"posting turns 100% |", "(4/4", "waiting for stored turns 100% |", "asking questions 100% |", "(3/3"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	if strings.Contains(out.String(), "turns 100%") || !strings.Contains(out.String(), "recall_any@10") {
		t.Fatalf("stdout %q", out.String())
	}
}
