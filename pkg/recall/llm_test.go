package recall_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a local store of memories and a Recaller over it.
type fixture struct {
	r   *recall.Recaller
	reg *prometheus.Registry
}

type mem struct {
	id, content, key string
	scope            []string
	age              time.Duration // before testNow; default one hour
	archived         bool
	supersededBy     string // sets invalid_at too
}

func storeOf(t *testing.T, mems []mem) *local.Store {
	t.Helper()
	ctx := context.Background()
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	var batch []memory.Memory
	for _, m := range mems {
		vecs, _ := embedtest.Terms{}.Embed(ctx, []string{m.content})
		age := m.age
		if age == 0 {
			age = time.Hour
		}
		batch = append(batch, memory.Memory{ID: m.id, Key: m.key, Tenant: "acme", Namespace: memory.DefaultNamespace, Content: m.content,
			Domain: "general", Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, Importance: 0.5,
			Scope: m.scope, CreatedAt: testNow.Add(-age), ModifiedAt: testNow.Add(-age), Vector: vecs[0],
			Archived: m.archived, SupersededBy: m.supersededBy})
		if m.supersededBy != "" {
			inv := testNow.Add(-time.Minute)
			batch[len(batch)-1].InvalidAt = &inv
		}
	}
	if err := st.Upsert(ctx, batch); err != nil {
		t.Fatal(err)
	}
	return st
}

// newFixture builds a Recaller whose LLM is srv (nil: no LLM option).
func newFixture(t *testing.T, mems []mem, cfg recall.Config, srv *llmtest.Server) fixture {
	t.Helper()
	if cfg.PerDomain == 0 {
		cfg = recall.Config{PerDomain: 9, MaxResults: 9, MinRelevance: 0.05, Candidates: 50,
			ExpandTimeout: cfg.ExpandTimeout, RerankTimeout: cfg.RerankTimeout, Rerank: cfg.Rerank}
	}
	reg := prometheus.NewRegistry()
	opts := []recall.Option{recall.WithRegisterer(reg)}
	if srv != nil {
		client, err := llm.New(llm.Config{URL: srv.URL(), Model: "default-model", MaxRetries: 0,
			Models: map[llm.Tier]string{llm.TierExpand: "expand-model", llm.TierRerank: "rerank-model"}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, recall.WithLLM(client))
	}
	r, err := recall.New(cfg, storeOf(t, mems), embedtest.Terms{}, domains.Builtin(), func() time.Time { return testNow }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{r: r, reg: reg}
}

func (f fixture) recall(t *testing.T, req recall.Request) recall.Response {
	t.Helper()
	req.Tenant, req.Dry = "acme", true
	resp, err := f.r.Recall(context.Background(), req)
	if err != nil {
		t.Fatalf("recall %q: %v", req.Query, err)
	}
	return resp
}

// steps reads recollect_recall_llm_steps_total{step, outcome}.
func (f fixture) steps(t *testing.T, step, outcome string) float64 {
	t.Helper()
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "recollect_recall_llm_steps_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["step"] == step && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func ids(resp recall.Response) []string {
	var out []string
	for _, res := range resp.Memories {
		out = append(out, res.Memory.ID)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

var shipping = []mem{
	{id: "deploy", content: "the deploy script lives in tools/release.sh and pushes the image"},
	{id: "tabs", content: "indent go code with tabs"},
	{id: "coffee", content: "the team drinks coffee at ten"},
}

func TestExpandWhenAsked(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Text("Here you go:\n```json\n{\"queries\": [\"deploy script\", \"release image\", \"DEPLOY SCRIPT\", \"ship to production\"]}\n```"))
	f := newFixture(t, shipping, recall.Config{}, srv)

	resp := f.recall(t, recall.Request{Query: "ship to production", Expand: ptr(true)})
	if resp.Expand == nil || !resp.Expand.Applied || resp.Expand.Trigger != "request" {
		t.Fatalf("expand step = %+v, want applied on request", resp.Expand)
	}
	if want := []string{"deploy script", "release image"}; !slices.Equal(resp.Expand.Queries, want) {
		t.Fatalf("expansions = %q, want %q (duplicates and the query itself dropped)", resp.Expand.Queries, want)
	}
	if len(resp.Memories) == 0 || resp.Memories[0].Memory.ID != "deploy" {
		t.Fatalf("recalled %v, want deploy first", ids(resp))
	}
	top := resp.Memories[0]
	if !top.Expanded || top.ExpandedQuery == "" || top.Relevance <= 0 {
		t.Fatalf("top result %+v: want its relevance explained by an expansion", top)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "expand-model" || !strings.Contains(reqs[0].LastUser(), "ship to production") {
		t.Fatalf("llm requests %+v: want one to the expand model with the query", reqs)
	}
	if got := f.steps(t, "expand", "applied"); got != 1 {
		t.Fatalf("applied expansions counted %v, want 1", got)
	}
}

func TestAutoExpand(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		expand  *bool
		answer  string
		wantLLM bool
		want    *recall.Step // nil: no step reported
	}{
		{name: "weak first pass expands", query: "ship to production", answer: `{"queries": ["deploy script"]}`, wantLLM: true,
			want: &recall.Step{Applied: true, Trigger: "auto", Queries: []string{"deploy script"}}},
		{name: "expansion no better is dropped", query: "ship to production", answer: `{"queries": ["bicycle repair"]}`, wantLLM: true,
			want: &recall.Step{Trigger: "auto", Reason: "not_better", Queries: []string{"bicycle repair"}}},
		{name: "strong first pass does not", query: "deploy script release image"},
		{name: "expand false never does", query: "ship to production", expand: ptr(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			if tt.answer != "" {
				srv.Push(llmtest.Text(tt.answer))
			}
			f := newFixture(t, shipping, recall.Config{}, srv)
			plain := f.recall(t, recall.Request{Query: tt.query, Expand: ptr(false)})
			best := 0.0
			for _, res := range plain.Memories {
				best = max(best, res.Relevance)
			}
			if weak := best < recall.DefaultAutoExpandBelow; tt.expand == nil && weak != tt.wantLLM {
				t.Fatalf("first pass best relevance %v: the case expects it below %v: %v", best, recall.DefaultAutoExpandBelow, tt.wantLLM)
			}
			resp := f.recall(t, recall.Request{Query: tt.query, Expand: tt.expand})
			if got := len(srv.Requests()); (got > 0) != tt.wantLLM {
				t.Fatalf("llm asked %d times, want asked %v", got, tt.wantLLM)
			}
			switch {
			case tt.want == nil && resp.Expand != nil:
				t.Fatalf("expand step %+v, want none", resp.Expand)
			case tt.want != nil && (resp.Expand == nil || resp.Expand.Applied != tt.want.Applied || resp.Expand.Trigger != tt.want.Trigger ||
				resp.Expand.Reason != tt.want.Reason || !slices.Equal(resp.Expand.Queries, tt.want.Queries)):
				t.Fatalf("expand step %+v, want %+v", resp.Expand, tt.want)
			}
			if tt.want == nil || !tt.want.Applied {
				if !slices.Equal(ids(resp), ids(plain)) {
					t.Fatalf("recalled %v, want the first pass %v", ids(resp), ids(plain))
				}
				return
			}
			if !slices.Contains(ids(resp), "deploy") {
				t.Fatalf("recalled %v, want the expansion's find", ids(resp))
			}
		})
	}
}

var indenting = []mem{
	{id: "a", content: "indent go code with tabs in every file"},
	{id: "b", content: "indent go code with tabs"},
	{id: "c", content: "indent go code with tabs please, the linter demands it in the repository"},
}

func TestRerankReorders(t *testing.T) {
	srv := llmtest.New(t)
	f := newFixture(t, indenting, recall.Config{}, srv)
	plain := f.recall(t, recall.Request{Query: "indent go code with tabs"})
	if len(plain.Memories) != 3 {
		t.Fatalf("first pass %v, want 3 memories", ids(plain))
	}
	// The model puts the fused order upside down, with scores.
	last, mid, first := plain.Memories[2], plain.Memories[1], plain.Memories[0]
	pos := map[string]int{first.Memory.ID: 1, mid.Memory.ID: 2, last.Memory.ID: 3}
	srv.Push(llmtest.JSON(map[string]any{"ranking": []map[string]any{
		{"id": pos[last.Memory.ID], "score": 1}, {"id": pos[mid.Memory.ID], "score": 0.5}, {"id": pos[first.Memory.ID], "score": 0}}}))
	resp := f.recall(t, recall.Request{Query: "indent go code with tabs", Rerank: ptr(true)})
	if want := []string{last.Memory.ID, mid.Memory.ID, first.Memory.ID}; !slices.Equal(ids(resp), want) {
		t.Fatalf("reranked %v, want %v", ids(resp), want)
	}
	if resp.Rerank == nil || !resp.Rerank.Applied || resp.Rerank.Reranked != 3 || resp.Rerank.Trigger != "request" {
		t.Fatalf("rerank step %+v", resp.Rerank)
	}
	fused := map[string]float64{}
	for _, res := range plain.Memories {
		fused[res.Memory.ID] = res.Score
	}
	for _, res := range resp.Memories {
		if res.Rerank == nil || res.FusedScore == nil {
			t.Fatalf("result %s lacks its rerank explanation", res.Memory.ID)
		}
		want := 0.5*fused[res.Memory.ID] + 0.5**res.Rerank
		if math.Abs(*res.FusedScore-fused[res.Memory.ID]) > 1e-9 || math.Abs(res.Score-want) > 1e-9 {
			t.Fatalf("%s: score %v (fused %v, rerank %v), want %v", res.Memory.ID, res.Score, *res.FusedScore, *res.Rerank, want)
		}
	}
	req := srv.Requests()[0]
	if req.Model != "rerank-model" || !strings.Contains(req.LastUser(), "[3] ") || !strings.Contains(req.LastUser(), "indent go code with tabs") {
		t.Fatalf("rerank request to %s:\n%s", req.Model, req.LastUser())
	}
}

func TestRerankByServerDefault(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Text(`{"ranking": [3, 2, 1]}`))
	f := newFixture(t, indenting, recall.Config{Rerank: true}, srv)
	resp := f.recall(t, recall.Request{Query: "indent go code with tabs"})
	if resp.Rerank == nil || !resp.Rerank.Applied || resp.Rerank.Trigger != "default" {
		t.Fatalf("rerank step %+v, want applied by default", resp.Rerank)
	}
	if *resp.Memories[0].Rerank != 1 {
		t.Fatalf("first of an unscored ranking judged %v, want 1", *resp.Memories[0].Rerank)
	}
	if off := f.recall(t, recall.Request{Query: "indent go code with tabs", Rerank: ptr(false)}); off.Rerank != nil || len(srv.Requests()) != 1 {
		t.Fatalf("rerank false still reranked: %+v", off.Rerank)
	}
}

// TestLLMFailuresKeepTheFirstPass: whatever the model does, recall answers
// with what it had before the step and says why.
func TestLLMFailuresKeepTheFirstPass(t *testing.T) {
	tests := []struct {
		name    string
		reply   llmtest.Reply
		down    bool
		outcome string
	}{
		{name: "prose", reply: llmtest.Text("I think the first one is best."), outcome: "unparseable"},
		{name: "truncated JSON", reply: llmtest.Text(`{"queries": ["deploy scr`), outcome: "unparseable"},
		{name: "nothing usable", reply: llmtest.Text(`{"queries": [], "ranking": [{"id": 99}, {"id": "x"}]}`), outcome: "unparseable"},
		{name: "server error", reply: llmtest.Status(500), outcome: "failed"},
		{name: "garbage body", reply: llmtest.Reply{Raw: "<html>bad gateway</html>"}, outcome: "failed"},
		{name: "too slow", reply: llmtest.Reply{Delay: time.Minute, Content: `{"queries": ["deploy script"]}`}, outcome: "timeout"},
		{name: "server gone", down: true, outcome: "failed"},
	}
	for _, tt := range tests {
		for _, step := range []string{"expand", "rerank"} {
			t.Run(tt.name+"/"+step, func(t *testing.T) {
				srv := llmtest.New(t)
				srv.Handle(func(llmtest.Request) llmtest.Reply { return tt.reply })
				f := newFixture(t, indenting, recall.Config{ExpandTimeout: 300 * time.Millisecond, RerankTimeout: 300 * time.Millisecond}, srv)
				query := "indent go code with tabs"
				plain := f.recall(t, recall.Request{Query: query, Expand: ptr(false)})
				if tt.down {
					srv.Close()
				}
				req := recall.Request{Query: query, Expand: ptr(step == "expand"), Rerank: ptr(step == "rerank")}
				resp := f.recall(t, req)
				got := resp.Expand
				if step == "rerank" {
					got = resp.Rerank
				}
				if got == nil || got.Applied || got.Reason != tt.outcome {
					t.Fatalf("%s step %+v, want not applied for %s", step, got, tt.outcome)
				}
				if !slices.Equal(ids(resp), ids(plain)) {
					t.Fatalf("recalled %v, want the first pass %v", ids(resp), ids(plain))
				}
				for i, res := range resp.Memories {
					if res.Score != plain.Memories[i].Score || res.Rerank != nil || res.Expanded {
						t.Fatalf("result %d changed by a failed step: %+v", i, res)
					}
				}
				if n := f.steps(t, step, tt.outcome); n != 1 {
					t.Fatalf("%s %s counted %v times, want 1", step, tt.outcome, n)
				}
			})
		}
	}
}

func TestWithoutLLMStepsAreReportedNotApplied(t *testing.T) {
	off, err := llm.New(llm.Config{Level: llm.LevelOff}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]recall.Option{"level off": recall.WithLLM(off), "no client": recall.WithLLM(nil)} {
		t.Run(name, func(t *testing.T) {
			cfg := recall.Config{PerDomain: 9, MaxResults: 9, MinRelevance: 0.05, Candidates: 50}
			r, err := recall.New(cfg, storeOf(t, shipping), embedtest.Terms{}, domains.Builtin(), func() time.Time { return testNow }, opt)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: "deploy script", Expand: ptr(true), Rerank: ptr(true), Dry: true})
			if err != nil {
				t.Fatal(err)
			}
			for step, s := range map[string]*recall.Step{"expand": resp.Expand, "rerank": resp.Rerank} {
				if s == nil || s.Applied || s.Reason != "llm_off" || s.Trigger != "request" {
					t.Fatalf("%s step %+v, want reported as not applied (llm_off)", step, s)
				}
			}
			if len(resp.Memories) == 0 || resp.Memories[0].Memory.ID != "deploy" || resp.Memories[0].Rerank != nil {
				t.Fatalf("recalled %+v", resp.Memories)
			}
			// A weak query without an LLM does not report an automatic step.
			weak, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: "ship to production", Dry: true})
			if err != nil || weak.Expand != nil {
				t.Fatalf("weak query: step %+v, err %v", weak.Expand, err)
			}
		})
	}
}
