package usagetest

import (
	"context"
	"slices"
	"sync"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// Memory is an in-memory usage backend (Writer and Reader) for tests of
// code that records usage, and for tests of the buffer: it can be made to
// fail or to hang like an unreachable server.
type Memory struct {
	mu       sync.Mutex
	records  []usage.Record
	err      error
	gate     chan struct{} // non-nil while held: writes wait for it
	writes   int           // Write calls, failed ones included
	inFlight int
}

var (
	_ usage.Writer = (*Memory)(nil)
	_ usage.Reader = (*Memory)(nil)
)

// NewMemory returns an empty, healthy backend.
func NewMemory() *Memory { return &Memory{} }

// Write appends records, or fails with the error set by Fail, or waits while
// the backend is held.
func (m *Memory) Write(ctx context.Context, records []usage.Record) error {
	m.mu.Lock()
	m.writes++
	m.inFlight++
	gate := m.gate
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inFlight--
		m.mu.Unlock()
	}()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.records = append(m.records, records...)
	return nil
}

// Totals sums the stored records q selects.
func (m *Memory) Totals(ctx context.Context, q usage.Query) ([]usage.Total, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var t usage.Tally
	for _, r := range m.records {
		if q.Match(r) {
			t.Add(r)
		}
	}
	return t.Totals(), nil
}

// Fail makes every following Write return err; nil heals the backend.
func (m *Memory) Fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

// Hold makes every following Write wait, as on a server that accepts
// connections but never answers, until release is called or the write's
// context ends.
func (m *Memory) Hold() (release func()) {
	gate := make(chan struct{})
	m.mu.Lock()
	m.gate = gate
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			if m.gate == gate {
				m.gate = nil
			}
			m.mu.Unlock()
			close(gate)
		})
	}
}

// Records returns a copy of what was stored, in write order.
func (m *Memory) Records() []usage.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.records)
}

// Writes is how many times Write was called, failed calls included.
func (m *Memory) Writes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writes
}

// InFlight is how many Write calls have not returned yet.
func (m *Memory) InFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inFlight
}
