package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
	"github.com/spf13/pflag"
)

const tenant = "t1"

// clock is an injected clock the tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memJournal keeps the epochs' records.
type memJournal struct {
	mu   sync.Mutex
	recs []EpochRecord
	fail error
}

func (j *memJournal) Record(_ context.Context, e EpochRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return j.fail
	}
	j.recs = append(j.recs, e)
	return nil
}

func (j *memJournal) ops(phase, op string) []Op {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Op
	for _, r := range j.recs {
		for _, o := range r.Ops {
			if (phase == "" || o.Phase == phase) && (op == "" || o.Op == op) {
				out = append(out, o)
			}
		}
	}
	return out
}

// faultStore is the real local store with a payload write that can be
// made to fail after n calls: a crash in the middle of an epoch's writes.
type faultStore struct {
	store.Store
	mu        sync.Mutex
	failAfter int // -1: never
	calls     int
	// afterScroll, when set, runs once after the next whole scroll: a
	// writer that changes memories while an epoch holds what it read.
	afterScroll func()
	// beforeWrite, when set, runs once before the next payload write: a
	// writer that slips in between the commit's read and its write.
	beforeWrite func()
}

var errCrash = errors.New("crash")

func (f *faultStore) UpdatePayload(ctx context.Context, tenant string, ms []memory.Memory) error {
	if f.fault() {
		return errCrash
	}
	return f.Store.UpdatePayload(ctx, tenant, ms)
}

// fault counts a payload write and says whether it crashes; a write hook
// set runs once, before the write.
func (f *faultStore) fault() bool {
	f.mu.Lock()
	f.calls++
	fail := f.failAfter >= 0 && f.calls > f.failAfter
	hook := f.beforeWrite
	f.beforeWrite = nil
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	return fail
}

// The engine's conditional writes (store.ConditionalWriter), forwarded,
// the payload ones counted as UpdatePayload is.

func (f *faultStore) GetRevision(ctx context.Context, tenant, id string) (memory.Memory, uint64, error) {
	return f.Store.(store.ConditionalWriter).GetRevision(ctx, tenant, id)
}

func (f *faultStore) ScrollRevisions(ctx context.Context, tenant string, flt store.Filter, fn func(memory.Memory, uint64) error) error {
	err := f.Store.(store.RevisionScroller).ScrollRevisions(ctx, tenant, flt, fn)
	f.scrolled()
	return err
}

func (f *faultStore) UpsertIf(ctx context.Context, ms []memory.Memory, revs []uint64) error {
	return f.Store.(store.ConditionalWriter).UpsertIf(ctx, ms, revs)
}

func (f *faultStore) UpdatePayloadIf(ctx context.Context, tenant string, ms []memory.Memory, revs []uint64) error {
	if f.fault() {
		return errCrash
	}
	return f.Store.(store.ConditionalWriter).UpdatePayloadIf(ctx, tenant, ms, revs)
}

// ScrollMeta forwards the local engine's scroll without vectors, so the
// epochs of these tests take the path production takes.
func (f *faultStore) ScrollMeta(ctx context.Context, tenant string, flt store.Filter, fn func(memory.Memory) error) error {
	err := f.Store.(store.MetaScroller).ScrollMeta(ctx, tenant, flt, fn)
	f.scrolled()
	return err
}

// scrolled runs the scroll hook, once, after a whole scroll.
func (f *faultStore) scrolled() {
	f.mu.Lock()
	hook := f.afterScroll
	f.afterScroll = nil
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
}

type fixture struct {
	c       *Consolidator
	b       *bus.Bus
	copts   []Option
	cfg     Config
	reg     *prometheus.Registry
	st      *faultStore
	clock   *clock
	journal *memJournal
	llm     *llmtest.Server
	vz      *embedder.Vectorizer
	n       int
	locks   lock.Locker
}

type fixtureOpt func(*Config)

func rulesConfig() Config {
	var cfg Config
	cfg.RegisterFlags("", pflag.NewFlagSet("test", pflag.ContinueOnError))
	cfg.Interval = 0
	return cfg
}

// newFixture builds a consolidator over a real local store and embedded
// NATS; level "" means no LLM, else the scripted LLM server at that level.
func newFixture(t *testing.T, level llm.Level, opts ...fixtureOpt) *fixture {
	t.Helper()
	cfg := rulesConfig()
	for _, o := range opts {
		o(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	ls, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ls.Close() })
	f := &fixture{st: &faultStore{Store: ls, failAfter: -1}, clock: &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}, journal: &memJournal{}}
	var ecfg embedder.Config
	ecfg.RegisterFlags("", pflag.NewFlagSet("e", pflag.ContinueOnError))
	f.vz, err = embedder.NewVectorizer(embedtest.Terms{}, ecfg)
	if err != nil {
		t.Fatal(err)
	}
	copts := []Option{WithVectors(f.vz, "terms"), WithJournal(f.journal)}
	if level != "" {
		f.llm = llmtest.New(t)
		client, err := llm.New(llm.Config{URL: f.llm.URL(), Model: "m", Level: level, MaxRetries: 0}, nil, log)
		if err != nil {
			t.Fatal(err)
		}
		copts = append(copts, WithLLM(client))
	}
	f.b, f.copts, f.cfg = b, copts, cfg
	f.start(t)
	return f
}

// start builds and starts a consolidator over the fixture's bus, store and
// LLM: a restarted one keeps only what the bus and the store keep.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	f.reg = prometheus.NewRegistry()
	if f.locks == nil {
		f.locks = memlock.New()
	}
	c, err := New(f.cfg, f.st, f.b, f.locks, f.reg, slog.New(slog.NewTextHandler(io.Discard, nil)), f.clock.now, f.copts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.c = c
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
}

// put stores memories the way the embedder does (vectors included).
func (f *fixture) put(t *testing.T, ms ...memory.Memory) {
	t.Helper()
	vecs, err := f.vz.Vectors(t.Context(), ms)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms {
		ms[i].Vector = vecs[i]
		ms[i].EmbeddingModel = "terms"
	}
	if err := f.st.Upsert(t.Context(), ms); err != nil {
		t.Fatal(err)
	}
}

// mem is a memory of the tenant created now.
func (f *fixture) mem(content string, typ memory.Type, src memory.Source) memory.Memory {
	now := f.clock.now()
	return memory.Memory{ID: memory.MemoryID(tenant, "default", "u1", content), Tenant: tenant, Namespace: "default", Subject: "u1",
		Content: content, Domain: memory.DomainGeneral, Type: typ, Kind: typ.DefaultKind(), Layer: memory.LayerBuffer,
		Importance: float64(typ.Priority()) / 4, Confidence: memory.ConfidenceInferred, Source: src,
		CreatedAt: now, ModifiedAt: now, ValidFrom: now}
}

func (f *fixture) epoch(t *testing.T) memory.ConsolidatedEvent {
	t.Helper()
	f.n++
	ev, err := f.c.Epoch(t.Context(), tenant, fmt.Sprintf("e%d", f.n), nil)
	if err != nil {
		t.Fatalf("epoch %d: %v", f.n, err)
	}
	return ev
}

func (f *fixture) get(t *testing.T, id string) memory.Memory {
	t.Helper()
	m, err := f.st.Get(t.Context(), tenant, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m
}

// all returns every memory of the tenant, archived and superseded too.
func (f *fixture) all(t *testing.T) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	if err := f.st.Scroll(t.Context(), tenant, store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory) error {
		out = append(out, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
