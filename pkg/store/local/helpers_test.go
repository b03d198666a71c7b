package local

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// logCapture keeps every record logged, for tests that check a warning.
type logCapture struct {
	mu   sync.Mutex
	msgs []string
}

func (c *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCapture) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, r.Message)
	return nil
}
func (c *logCapture) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCapture) WithGroup(string) slog.Handler      { return c }

func (c *logCapture) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

// testMemory is a valid memory numbered n in tenant with vector v.
func testMemory(tenant string, n int, v []float32) memory.Memory {
	ts := time.Date(2025, 1, 2, 3, 4, 5, 6789, time.UTC).Add(time.Duration(n) * time.Second)
	return memory.Memory{
		ID:         memory.DeterministicID("local-test", tenant, strconv.Itoa(n)),
		Tenant:     tenant,
		Namespace:  memory.DefaultNamespace,
		Content:    "local memory " + strconv.Itoa(n),
		Domain:     memory.DomainGeneral,
		Type:       memory.TypeFact,
		Kind:       memory.KindSemantic,
		Layer:      memory.LayerBuffer,
		Importance: 0.5,
		Confidence: memory.ConfidenceInferred,
		Source:     memory.SourceRule,
		CreatedAt:  ts,
		ModifiedAt: ts,
		Tags:       []string{"t" + strconv.Itoa(n%3)},
		Vector:     v,
	}
}

// seededVector is a deterministic pseudo-random vector of dim components.
func seededVector(seed uint64, dim int) []float32 {
	v := make([]float32, dim)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[i] = float32(int64(x%2001)-1000) / 1000
	}
	return v
}

func openT(t *testing.T, dir string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(dir, append([]Option{WithLogger(discardLogger())}, opts...)...)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	return s
}

func closeT(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// recAt decodes row i of p, failing the test if it cannot.
func recAt(t testing.TB, p *partition, i int) memory.Memory {
	t.Helper()
	m, err := p.decode(i)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustUpsert is p.upsert failing the test on an error.
func mustUpsert(t testing.TB, p *partition, m memory.Memory, size int, lv lexical.SparseVector) {
	t.Helper()
	if _, err := p.upsert(m, size, lv); err != nil {
		t.Fatal(err)
	}
}

// mustRemove is p.remove failing the test on an error.
func mustRemove(t testing.TB, p *partition, id string) {
	t.Helper()
	if _, err := p.remove(id); err != nil {
		t.Fatal(err)
	}
}

// rowOfT returns the row of id in p, failing the test if p does not hold it.
func rowOfT(t testing.TB, p *partition, id string) int {
	t.Helper()
	row, ok := p.row(id)
	if !ok {
		t.Fatalf("partition does not hold %s", id)
	}
	return row
}
