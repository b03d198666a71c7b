package llm_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/usagetest"
)

func TestChatSuccess(t *testing.T) {
	s := llmtest.New(t, llmtest.WithAPIKey("sk-test"))
	s.Push(llmtest.Reply{Content: "hello back", InputTokens: 12, OutputTokens: 3, Model: "small-2025-01-01"})

	mem := usagetest.NewMemory()
	sink := usage.NewBuffered(mem)
	t.Cleanup(func() { _ = sink.Close() })
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	c, err := llm.New(config(s), sink, nil, llm.WithTracerProvider(tp))
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	if !c.Enabled() || c.Level() != llm.LevelAuto {
		t.Fatalf("enabled %v level %q, want true auto", c.Enabled(), c.Level())
	}

	ctx, parent := tp.Tracer("test").Start(context.Background(), "caller")
	resp, err := c.Chat(ctx, llm.Request{
		Tenant: "acme", Component: "extractor", Tier: llm.TierExtract, System: "be brief",
		Messages: user("hello"), MaxTokens: 100, Temperature: llm.Temperature(0),
	})
	parent.End()
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	want := llm.Response{Content: "hello back", FinishReason: "stop", InputTokens: 12, OutputTokens: 3,
		Model: "small-2025-01-01", Provider: host(t, s), Attempts: 1, Duration: resp.Duration}
	if resp != want {
		t.Fatalf("response %+v, want %+v", resp, want)
	}

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	wantMsgs := []llmtest.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello"}}
	if r.Model != "small" || !slices.Equal(r.Messages, wantMsgs) || r.MaxTokens != 100 ||
		r.Temperature == nil || *r.Temperature != 0 || r.ResponseFormat != "" || r.APIKey != "sk-test" {
		t.Fatalf("request model %q messages %+v max %d temperature %v format %q key %q",
			r.Model, r.Messages, r.MaxTokens, r.Temperature, r.ResponseFormat, r.APIKey)
	}

	if err := sink.Flush(context.Background()); err != nil {
		t.Fatalf("flush usage: %v", err)
	}
	recs := mem.Records()
	if len(recs) != 1 {
		t.Fatalf("%d usage records, want 1", len(recs))
	}
	got := recs[0]
	if got.Tenant != "acme" || got.Component != "extractor" || got.Provider != host(t, s) || got.Model != "small" ||
		got.InputTokens != 12 || got.OutputTokens != 3 || got.Outcome != usage.OutcomeOK ||
		got.TraceID != parent.SpanContext().TraceID().String() || got.Time.IsZero() {
		t.Fatalf("usage record %+v", got)
	}

	var chat sdktrace.ReadOnlySpan
	for _, sp := range spans.Ended() {
		if sp.Name() == "llm.chat" {
			chat = sp
		}
	}
	if chat == nil {
		t.Fatal("no llm.chat span")
	}
	if chat.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Fatal("llm.chat span is not a child of the caller's span")
	}
	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range chat.Attributes() {
		attrs[kv.Key] = kv.Value
	}
	for k, v := range map[attribute.Key]any{
		"gen_ai.request.model": "small", "gen_ai.response.model": "small-2025-01-01", "llm.provider": host(t, s),
		"gen_ai.usage.input_tokens": int64(12), "gen_ai.usage.output_tokens": int64(3), "llm.tier": "extract", "tenant": "acme",
	} {
		if attrs[k].AsInterface() != v {
			t.Errorf("span attribute %s = %v, want %v", k, attrs[k].AsInterface(), v)
		}
	}
}

func TestChatMissingUsage(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Content: "ok", NoUsage: true})
	c, rec := newClient(t, config(s))
	resp, err := c.Chat(context.Background(), llm.Request{Messages: user("hi")})
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	if resp.InputTokens != 0 || resp.OutputTokens != 0 || resp.Model != "small" {
		t.Fatalf("response %+v, want no tokens and the requested model", resp)
	}
	if r := rec.records(); len(r) != 1 || r[0].Outcome != usage.OutcomeOK || r[0].Component != "llm" {
		t.Fatalf("usage %+v, want one ok record of component llm", r)
	}
}

func TestTierModels(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	cfg := config(s)
	cfg.Models = map[llm.Tier]string{llm.TierExtract: "big", llm.TierGate: "gate-m", llm.TierNaming: ""}
	c, rec := newClient(t, cfg)
	for _, tc := range []struct {
		tier llm.Tier
		want string
	}{
		{llm.TierExtract, "big"},
		{llm.TierGate, "gate-m"},
		{llm.TierAudit, "gate-m"}, // audit borrows the gate model
		{llm.TierMerge, "small"},
		{llm.TierNaming, "small"}, // empty entry: default
		{llm.TierDefault, "small"},
	} {
		t.Run(string(tc.tier), func(t *testing.T) {
			before := len(s.Requests())
			resp, err := c.Chat(context.Background(), llm.Request{Tier: tc.tier, Messages: user("x")})
			if err != nil {
				t.Fatalf("chat: %v", err)
			}
			if got := s.Requests()[before].Model; got != tc.want || resp.Model != tc.want || c.Model(tc.tier) != tc.want {
				t.Fatalf("sent model %q, response %q, Model() %q; want %q", got, resp.Model, c.Model(tc.tier), tc.want)
			}
			if r := rec.records(); r[len(r)-1].Model != tc.want {
				t.Fatalf("usage model %q, want %q", r[len(r)-1].Model, tc.want)
			}
		})
	}
	if _, err := c.Chat(context.Background(), llm.Request{Tier: "bogus", Messages: user("x")}); err == nil {
		t.Fatal("unknown tier accepted")
	}
}

func TestDisabled(t *testing.T) {
	s := llmtest.New(t)
	for _, tc := range []struct {
		name string
		cfg  llm.Config
	}{
		{"zero config", llm.Config{}},
		{"level off with a url", llm.Config{URL: s.URL(), Model: "m", Level: llm.LevelOff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := newClient(t, tc.cfg)
			if c.Enabled() || c.Level() != llm.LevelOff {
				t.Fatalf("enabled %v level %q, want false off", c.Enabled(), c.Level())
			}
			if _, err := c.Chat(context.Background(), llm.Request{Messages: user("x")}); !errors.Is(err, llm.ErrDisabled) {
				t.Fatalf("chat = %v, want ErrDisabled", err)
			}
			if len(rec.records()) != 0 {
				t.Fatal("a disabled call was recorded")
			}
		})
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("server got %d requests from disabled clients", n)
	}
}
