package extract

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

var benchTurns = []string{
	prefTurn,
	"Can you look at why the deploy job fails on the staging cluster since yesterday?",
	"Never push directly to main; open a pull request and wait for two approvals.",
	"No, use pnpm, not npm — we moved off it last month.",
	"thanks, that worked!",
	apiTurn,
	"I looked at the pipeline: the failing step is the integration stage, which times out after 600 seconds because the database container starts slowly.",
	"From now on, keep answers short and skip the summaries at the end.",
}

// BenchmarkCapture is rule capture and the filters over one turn, in
// parallel on every core: the zero-cost path every turn takes.
func BenchmarkCapture(b *testing.B) {
	x, err := New(DefaultConfig(), nil, nil, nil, time.Now)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			e := turnEvent(fmt.Sprint(i), "user", benchTurns[i%len(benchTurns)], t0)
			x.Capture(e)
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkParseAnswer reads a fenced model answer of three facts.
func BenchmarkParseAnswer(b *testing.B) {
	answer := "```json\n" + goodAnswersJSON + "\n```"
	for b.Loop() {
		if _, _, err := parseAnswer(answer); err != nil {
			b.Fatal(err)
		}
	}
}

const goodAnswersJSON = `{"facts":[{"key":"workflow/commit","value":"The user runs make test before committing.","type":"workflow","explicit":true,"evidence":"always run make test before committing"},{"key":"preference/indentation","value":"The user prefers tabs over spaces.","type":"preference","explicit":true},{"key":"architecture/api","value":"The API runs on port 8080 behind nginx.","type":"architecture"}]}`

// BenchmarkModelExtraction is one extraction of six messages for the
// three domains in parallel against a scripted model that answers at
// once: all of it is what the pipeline adds to the model's own time.
func BenchmarkModelExtraction(b *testing.B) {
	srv := llmtest.New(b)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text(goodAnswersJSON) })
	client, err := llm.New(llm.Config{URL: srv.URL(), Model: "m"}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	x, err := New(DefaultConfig(), nil, nil, nil, time.Now, WithLLM(client))
	if err != nil {
		b.Fatal(err)
	}
	var msgs []memory.Message
	for i, t := range benchTurns[:6] {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, memory.Message{Role: role, Content: t})
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e := &memory.Event{ID: "x", Type: memory.EventCompaction, Tenant: "acme", SessionID: "s1", Messages: msgs}
		if _, err := x.Preview(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}
