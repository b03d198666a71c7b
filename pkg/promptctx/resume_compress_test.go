package promptctx

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/usage"
)

type usageLog struct {
	mu   sync.Mutex
	recs []usage.Record
}

func (u *usageLog) Record(_ context.Context, r usage.Record) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.recs = append(u.recs, r)
}

// overBudget fills Core and Recent well past their shares.
func overBudget(t *testing.T) *env {
	e := newEnv(t)
	var ms []memory.Memory
	for i := range 500 {
		ms = append(ms, mem(fmt.Sprintf("Core rule %d: the service %s must keep its retries under %d and log every failure to channel %d.", i, strings.Repeat("x", i%9+1), i+3, i),
			memory.TypePolicy, withLayer(memory.LayerCore), withImportance(float64(500-i)/500), withAge(30*24*time.Hour)))
	}
	for i := range 60 {
		ms = append(ms, mem(fmt.Sprintf("Recent note %d: migrated table t%d and moved job j%d to the night queue.", i, i, i), memory.TypeFact, withAge(time.Duration(i+1)*time.Minute)))
	}
	if err := e.st.Upsert(t.Context(), ms); err != nil { // resume needs no vectors
		t.Fatal(err)
	}
	return e
}

func compressingAssembler(t *testing.T, e *env, srv *llmtest.Server, rec llm.Recorder) *Assembler {
	t.Helper()
	client, err := llm.New(llm.Config{URL: srv.URL(), Model: "default-model", Models: map[llm.Tier]string{llm.TierResume: "resume-model"},
		MaxRetries: 1, Timeout: 5 * time.Second}, rec, nil, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(DefaultConfig(), e.st, nil, e.trees, domains.Builtin(), loadBPE(t), func() time.Time { return testNow },
		WithLogger(slog.New(slog.DiscardHandler)), WithLLM(client))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// inputLines are the memory lines a compression request carries.
func inputLines(req llmtest.Request) []string {
	return strings.Split(strings.TrimSuffix(req.User(), "\n"), "\n")
}

func TestResumeCompress(t *testing.T) {
	e := overBudget(t)
	srv := llmtest.New(t)
	srv.Handle(func(req llmtest.Request) llmtest.Reply {
		section := "recent"
		if strings.Contains(req.System(), "permanent rules") {
			section = "core"
		}
		return llmtest.Text(fmt.Sprintf("Here is the summary:\n- %s summary of %d memories\n* keeps retries and channels\n\n", section, len(inputLines(req))))
	})
	rec := &usageLog{}
	a := compressingAssembler(t, e, srv, rec)
	resp, err := a.Resume(t.Context(), ResumeRequest{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !slices.Equal(resp.Compressed, []string{SectionCore, SectionRecent}) {
		t.Fatalf("%d calls, compressed %v; want one call per over-budget section", len(reqs), resp.Compressed)
	}
	tok := loadBPE(t)
	for _, r := range reqs {
		section, limit, n := SectionRecent, e.a.cfg.ResumeRecent, len(resp.Recent)
		if strings.Contains(r.System(), "permanent rules") {
			section, limit, n = SectionCore, e.a.cfg.ResumeCore, len(resp.Core)
		}
		if r.Model != "resume-model" || r.MaxTokens != 2*limit {
			t.Fatalf("%s: model %q, max tokens %d", section, r.Model, r.MaxTokens)
		}
		if got := tok.Count(r.User()); got > compressInput*limit || got <= limit {
			t.Fatalf("%s: %d tokens sent, want over the budget %d and at most %d", section, got, limit, compressInput*limit)
		}
		if len(inputLines(r)) != n {
			t.Fatalf("%s: %d memories sent, %d listed as covered", section, len(inputLines(r)), n)
		}
	}
	want := fmt.Sprintf("=== Core (%d) ===\n- Here is the summary:\n- core summary of %d memories\n- keeps retries and channels\n", len(resp.Core), len(resp.Core))
	if !strings.Contains(resp.Text, want) {
		t.Fatalf("text lacks %q:\n%s", want, resp.Text)
	}
	if !strings.Contains(resp.Text, fmt.Sprintf("=== Recent (24h) ===\n- Here is the summary:\n- recent summary of %d memories\n", len(resp.Recent))) {
		t.Fatalf("recent not compressed:\n%s", resp.Text)
	}
	if resp.Core[0].Content != "Core rule 0: the service x must keep its retries under 3 and log every failure to channel 0." || len(resp.Core) >= 500 {
		t.Fatalf("core lists %d memories from %q: want the heaviest ones the summary covers", len(resp.Core), resp.Core[0].Content)
	}
	if got := tok.Count(resp.Text); got != resp.Tokens || got > resp.Budget || resp.Sections[SectionCore] > e.a.cfg.ResumeCore {
		t.Fatalf("tokens %d (counted %d), budget %d, core section %d", resp.Tokens, got, resp.Budget, resp.Sections[SectionCore])
	}
	rec.mu.Lock()
	for _, r := range rec.recs {
		if r.Component != "resume_compress" || r.Tenant != "acme" {
			t.Fatalf("usage record %+v", r)
		}
	}
	rec.mu.Unlock()

	// The same sections again: summarised once.
	again, err := a.Resume(t.Context(), ResumeRequest{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 2 || again.Text != resp.Text {
		t.Fatalf("%d calls for an unchanged resume; text changed: %v", len(srv.Requests()), again.Text != resp.Text)
	}
}

func TestResumeCompressFallsBackToTruncation(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"server error", llmtest.Status(500)},
		{"empty answer", llmtest.Text("  \n ")},
		{"cut at max tokens", llmtest.Reply{Content: "- a summary that", FinishReason: "length"}},
		{"summary over the budget", llmtest.Text(strings.Repeat("- a very long summary line that says little\n", 400))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := overBudget(t)
			plain, err := e.a.Resume(t.Context(), ResumeRequest{Tenant: "acme"}) // no LLM: truncation
			if err != nil {
				t.Fatal(err)
			}
			srv := llmtest.New(t)
			srv.Handle(func(llmtest.Request) llmtest.Reply { return tt.reply })
			resp, err := compressingAssembler(t, e, srv, nil).Resume(t.Context(), ResumeRequest{Tenant: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			if len(srv.Requests()) == 0 || len(resp.Compressed) != 0 {
				t.Fatalf("%d calls, compressed %v; want calls and no compression", len(srv.Requests()), resp.Compressed)
			}
			if resp.Text != plain.Text || len(resp.Core) != len(plain.Core) {
				t.Fatalf("fallback differs from truncation:\n%s\n---\n%s", resp.Text, plain.Text)
			}
		})
	}
}

func TestResumeWithinBudgetNotCompressed(t *testing.T) {
	e := resumeEnv(t)
	srv := llmtest.New(t) // any call fails the test: nothing is scripted
	resp, err := compressingAssembler(t, e, srv, nil).Resume(t.Context(), ResumeRequest{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 0 || len(resp.Compressed) != 0 || len(resp.Core) != 3 {
		t.Fatalf("%d calls, compressed %v for sections within budget", len(srv.Requests()), resp.Compressed)
	}
}
