package topiary

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/local"
	"github.com/recollect-dev/recollect/pkg/topics"
)

var testStart = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// fakeClock drives the debounce timers: they fire only when the test
// advances it (or at once for a zero wait, as time.AfterFunc does).
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	fired  int
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Time
	f     func()
	armed bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: testStart} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) afterFunc(d time.Duration, f func()) timer {
	t := &fakeTimer{c: c, f: f}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	was := t.armed
	t.at, t.armed = c.now.Add(d), true
	due := d <= 0
	if due {
		t.armed = false
		c.fired++
	}
	c.mu.Unlock()
	if due {
		go t.f()
	}
	return was
}

// Advance moves the clock and fires the timers that came due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for _, t := range c.timers {
		if t.armed && !t.at.After(c.now) {
			t.armed = false
			c.fired++
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		go t.f()
	}
}

// Fired counts timer expiries so far.
func (c *fakeClock) Fired() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fired
}

// env is a real local store and embedded JetStream shared by the module
// instances a test makes, with in-process leases.
type env struct {
	store *local.Store
	bus   *bus.Bus
	locks *memlock.Locker
	clock *fakeClock
	log   *slog.Logger

	published int
}

func newEnv(t testing.TB) *env {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return &env{store: st, bus: b, locks: memlock.New(), clock: newFakeClock(), log: log}
}

func testConfig() Config {
	return Config{Debounce: 5 * time.Second, MaxDelay: time.Minute, LeaseTTL: 30 * time.Second}
}

// module builds an instance with its tree bucket open but not started.
func (e *env) module(t testing.TB, cfg Config, opts ...Option) *Topiary {
	t.Helper()
	m, err := New(cfg, topics.DefaultOptions(), e.store, e.bus, e.locks, prometheus.NewRegistry(), e.log, e.clock.Now, opts...)
	if err != nil {
		t.Fatal(err)
	}
	m.afterFunc = e.clock.afterFunc
	if m.trees, err = OpenTrees(context.Background(), e.bus.JetStream()); err != nil {
		t.Fatal(err)
	}
	return m
}

// start starts an instance and waits for its start-up scan to end.
func (e *env) start(t *testing.T, cfg Config, opts ...Option) *Topiary {
	t.Helper()
	m := e.module(t, cfg, opts...)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	select {
	case <-m.scanned:
	case <-time.After(30 * time.Second):
		t.Fatal("start-up scan did not end")
	}
	return m
}

// put stores memories of a tenant with term vectors; their ids are
// "<tenant>-<i>" from first.
func (e *env) put(t *testing.T, tenant string, first int, texts ...string) []string {
	t.Helper()
	vecs, _ := embedtest.Terms{}.Embed(context.Background(), texts)
	ids := make([]string, len(texts))
	mems := make([]memory.Memory, len(texts))
	for i, text := range texts {
		ids[i] = fmt.Sprintf("%s-%03d", tenant, first+i)
		mems[i] = memory.Memory{ID: ids[i], Tenant: tenant, Namespace: memory.DefaultNamespace, Content: text, Domain: memory.DomainGeneral,
			Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, Importance: 0.5, Source: memory.SourceAPI,
			CreatedAt: testStart, ModifiedAt: testStart, Vector: vecs[i]}
	}
	if err := e.store.Upsert(context.Background(), mems); err != nil {
		t.Fatal(err)
	}
	return ids
}

// publishStored announces a stored memory of the tenant on the bus.
func (e *env) publishStored(t *testing.T, tenant string) {
	t.Helper()
	e.published++
	data, _ := json.Marshal(memory.StoredEvent{Tenant: tenant, ID: fmt.Sprintf("m%d", e.published), Op: memory.StoredInserted})
	if err := e.bus.Publish(context.Background(), bus.Msg{Subject: bus.StoredSubject(tenant), ID: fmt.Sprintf("stored-%d", e.published), Data: data}); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEvents waits until the tenant's pending rebuild covers n events.
func waitEvents(t *testing.T, m *Topiary, tenant string, n int) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d events pending for %s", n, tenant), func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		p, ok := m.pending[tenant]
		switch {
		case !ok:
			return fmt.Errorf("nothing pending")
		case p.events != n:
			return fmt.Errorf("%d events pending", p.events)
		}
		return nil
	})
}

func counter(t *testing.T, v *prometheus.CounterVec, label string) float64 {
	t.Helper()
	var m dto.Metric
	if err := v.WithLabelValues(label).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// waitRebuilds waits until the instance counted n successful rebuilds.
func waitRebuilds(t *testing.T, m *Topiary, n int) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d rebuilds", n), func() error {
		if got := counter(t, m.rebuilds, "ok"); got != float64(n) {
			return fmt.Errorf("%g rebuilds", got)
		}
		return nil
	})
}
