package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/usage"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// recorder is a usage sink that keeps every record.
type recorder struct {
	mu   sync.Mutex
	recs []usage.Record
}

func (r *recorder) Record(_ context.Context, rec usage.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
}

func (r *recorder) records(component string) []usage.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []usage.Record
	for _, rec := range r.recs {
		if rec.Component == component {
			out = append(out, rec)
		}
	}
	return out
}

// harness is an extractor on its own embedded JetStream with a scripted
// LLM server and a fake clock; the schedule is driven by runDue.
type harness struct {
	t     *testing.T
	x     *Extractor
	bus   *bus.Bus
	srv   *llmtest.Server
	clock *fakeClock
	usage *recorder
	reg   *prometheus.Registry
	cfg   Config
}

type harnessOpts struct {
	bus      *bus.Bus
	clock    *fakeClock
	srv      *llmtest.Server
	noLLM    bool
	instance string
	tick     time.Duration
	timeout  time.Duration
	cfg      func(*Config)
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	b := o.bus
	if b == nil {
		b = openBus(t)
	}
	clock := o.clock
	if clock == nil {
		clock = newFakeClock()
	}
	h := &harness{t: t, bus: b, clock: clock, usage: &recorder{}, reg: prometheus.NewRegistry(), srv: o.srv}
	cfg := DefaultConfig()
	cfg.HandlerTimeout = 20 * time.Second
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	h.cfg = cfg
	opts := []Option{withTick(o.tick), WithLocker(memlock.New(memlock.WithClock(clock.Now)))}
	if o.instance != "" {
		opts = append(opts, withInstance(o.instance))
	}
	if !o.noLLM {
		if h.srv == nil {
			h.srv = llmtest.New(t)
		}
		timeout := o.timeout
		if timeout == 0 {
			timeout = 10 * time.Second
		}
		client, err := llm.New(llm.Config{URL: h.srv.URL(), Model: "test-model", MaxRetries: 1, Timeout: timeout},
			h.usage, quiet, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, WithLLM(client))
	}
	x, err := New(cfg, b, h.reg, quiet, clock.Now, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = x.Stop(ctx)
	})
	h.x = x
	return h
}

func openBus(t *testing.T) *bus.Bus {
	t.Helper()
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir()}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// handle delivers an event to the handler as the consumer would.
func (h *harness) handle(e *memory.Event) error {
	h.t.Helper()
	data, err := json.Marshal(e)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return h.x.Handle(ctx, &bus.Delivery{Subject: bus.ConvSubject(e.Tenant), Data: data, NumDelivered: 1})
}

func (h *harness) mustHandle(e *memory.Event) {
	h.t.Helper()
	if err := h.handle(e); err != nil {
		h.t.Fatalf("handle %s: %v", e.ID, err)
	}
}

// turn is a turn event of session s1 at the fake clock's time.
func (h *harness) turn(id, role, content string) *memory.Event {
	return turnEvent(id, role, content, h.clock.Now())
}

// runDue runs the due sessions and waits for them.
func (h *harness) runDue() int {
	h.t.Helper()
	n := h.x.sched.runDue(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.x.sched.wait(ctx); err != nil {
		h.t.Fatalf("session runs did not finish: %v", err)
	}
	return n
}

// facts reads every fact published so far.
func (h *harness) facts() []memory.FactMessage {
	h.t.Helper()
	return streamFacts(h.t, h.bus)
}

func streamFacts(t *testing.T, b *bus.Bus) []memory.FactMessage {
	t.Helper()
	ctx := context.Background()
	s, err := b.JetStream().Stream(ctx, bus.StreamFact)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []memory.FactMessage
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var f memory.FactMessage
		if err := json.Unmarshal(m.Data, &f); err != nil {
			t.Fatal(err)
		}
		if bus.FactSubject(f.Memory.Domain) != m.Subject {
			t.Fatalf("fact of domain %s on subject %s", f.Memory.Domain, m.Subject)
		}
		out = append(out, f)
	}
	return out
}

// byRule keeps the facts a producer made ("llm", a rule name prefix, ...).
func byRule(fs []memory.FactMessage, rule string) []memory.FactMessage {
	var out []memory.FactMessage
	for _, f := range fs {
		if f.Rule == rule || strings.HasPrefix(f.Rule, rule+".") {
			out = append(out, f)
		}
	}
	return out
}

func contents(fs []memory.FactMessage) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Memory.Content
	}
	return out
}

// session reads a session's buffer.
func (h *harness) session(id string) (session, bool) {
	h.t.Helper()
	s, _, ok, err := h.x.sessions.get(context.Background(), sessionKey("acme", "default", id))
	if err != nil {
		h.t.Fatal(err)
	}
	return s, ok
}

// waitScheduled waits until the schedule knows session id is pending
// (fed by the handler, or the bucket watch).
func (h *harness) waitScheduled(id string) schedEntry {
	h.t.Helper()
	key := sessionKey("acme", "default", id)
	var e schedEntry
	eventually(h.t, "session "+id+" scheduled", func() error {
		var ok bool
		if e, ok = h.x.sched.snapshot(key); !ok || !e.pending {
			return fmt.Errorf("not scheduled: %+v", e)
		}
		return nil
	})
	return e
}

func (h *harness) counter(c *prometheus.CounterVec, labels ...string) float64 {
	return counterValue(h.t, c, labels...)
}

func counterValue(t *testing.T, c *prometheus.CounterVec, labels ...string) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.WithLabelValues(labels...).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// eventually polls cond until it returns nil, failing after a generous
// deadline (a bound on a hang, not a performance threshold).
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}

// domainOf tells which domain's prompt a chat request carries.
func domainOf(req llmtest.Request) string {
	sys := req.System()
	for _, d := range domains.Builtin().All() {
		if strings.HasPrefix(sys, d.Role) {
			return d.ID
		}
	}
	if strings.Contains(req.User(), "personality directive") {
		return "personality"
	}
	return ""
}

// repair reports whether a chat request is a repair request.
func repair(req llmtest.Request) bool {
	return len(req.Messages) == 4 && req.Messages[2].Role == "assistant"
}

// script answers each domain from a table; missing domains answer no
// facts.
func script(answers map[string]string) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		if a, ok := answers[domainOf(req)]; ok {
			return llmtest.Text(a)
		}
		return llmtest.Text(`{"facts": []}`)
	}
}

func factsJSON(fs ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"facts": fs})
	return string(b)
}
