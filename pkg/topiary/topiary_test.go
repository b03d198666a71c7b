package topiary

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/topics"
)

var groupTexts = []string{
	"deploy the api with docker compose on the staging host",
	"docker compose deploy needs the staging env file",
	"the invoices table migration adds a currency column",
	"invoices migration backfill runs at night",
}

// acked waits until the consumer has no event left unacknowledged.
func acked(t *testing.T, e *env) {
	t.Helper()
	eventually(t, "events acknowledged", func() error {
		c, err := e.bus.JetStream().Consumer(context.Background(), bus.StreamEvent, Durable)
		if err != nil {
			return err
		}
		info, err := c.Info(context.Background())
		if err != nil {
			return err
		}
		if info.NumAckPending != 0 || info.NumPending != 0 {
			return fmt.Errorf("%d unacknowledged, %d undelivered", info.NumAckPending, info.NumPending)
		}
		return nil
	})
}

func TestDebounce(t *testing.T) {
	e := newEnv(t)
	m := e.start(t, Config{Debounce: 5 * time.Second, MaxDelay: time.Minute, LeaseTTL: 30 * time.Second})
	e.put(t, "acme", 0, groupTexts...)

	// Events at 0s, 3s and 6s: each pushes the rebuild back to 5s after
	// it, so the one rebuild runs at 11s.
	for i, step := range []time.Duration{3 * time.Second, 3 * time.Second, 4 * time.Second} {
		e.publishStored(t, "acme")
		waitEvents(t, m, "acme", i+1)
		e.clock.Advance(step)
		if got := e.clock.Fired(); got != 0 {
			t.Fatalf("after event %d and %s more: %d rebuilds fired, want none while events keep coming", i+1, step, got)
		}
	}
	e.clock.Advance(time.Second)
	if got := e.clock.Fired(); got != 1 {
		t.Fatalf("5s after the last event: %d rebuilds fired, want 1", got)
	}
	waitRebuilds(t, m, 1)
	acked(t, e)
	tree, err := m.trees.Load(context.Background(), "acme")
	if err != nil || tree.Memories != len(groupTexts) || !tree.Built.Equal(testStart.Add(11*time.Second)) {
		t.Fatalf("tree %+v, %v: want %d memories built at +11s", tree, err, len(groupTexts))
	}
	if got := counter(t, m.rebuilds, "ok"); got != 1 {
		t.Fatalf("%g rebuilds for three events, want 1", got)
	}
}

func TestMaxDelay(t *testing.T) {
	e := newEnv(t)
	m := e.start(t, Config{Debounce: 5 * time.Second, MaxDelay: 12 * time.Second, LeaseTTL: 30 * time.Second})
	e.put(t, "acme", 0, groupTexts...)

	// An event every 4s never leaves 5s of quiet; the rebuild still runs
	// 12s after the first event of each round, twice in 24s.
	for round := 1; round <= 2; round++ {
		for i := range 3 {
			e.publishStored(t, "acme")
			waitEvents(t, m, "acme", i+1)
			if i < 2 {
				e.clock.Advance(4 * time.Second)
				if got := e.clock.Fired(); got != round-1 {
					t.Fatalf("round %d, event %d: %d rebuilds fired, want %d", round, i+1, got, round-1)
				}
			}
		}
		e.clock.Advance(4 * time.Second) // 12s after the round's first event
		if got := e.clock.Fired(); got != round {
			t.Fatalf("round %d at MaxDelay: %d rebuilds fired, want %d", round, got, round)
		}
		waitRebuilds(t, m, round)
	}
	acked(t, e)
	tree, err := m.trees.Load(context.Background(), "acme")
	if err != nil || !tree.Built.Equal(testStart.Add(24*time.Second)) {
		t.Fatalf("tree built %v (%v), want +24s", tree.Built, err)
	}
}

func TestLease(t *testing.T) {
	e := newEnv(t)
	e.put(t, "acme", 0, groupTexts...)
	srv := llmtest.New(t)
	srv.Handle(nameEach)
	release := srv.Hold()
	a := e.module(t, testConfig(), WithLLM(newClient(t, srv)))
	b := e.module(t, testConfig())

	done := make(chan error, 1)
	go func() { done <- a.Rebuild(context.Background(), "acme") }()
	eventually(t, "first rebuild naming", func() error {
		if srv.InFlight() != 1 {
			return errors.New("no naming call in flight")
		}
		return nil
	})
	// The first instance holds the tenant's lease while it names.
	if err := b.Rebuild(context.Background(), "acme"); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("concurrent rebuild: %v, want lock.ErrHeld", err)
	}
	if got := counter(t, b.rebuilds, "busy"); got != 1 {
		t.Fatalf("busy counted %g, want 1", got)
	}
	if _, err := b.trees.Load(context.Background(), "acme"); !errors.Is(err, ErrNoTree) {
		t.Fatalf("a tree was saved while the first rebuild ran: %v", err)
	}
	// Another tenant is not held up.
	e.put(t, "beta", 0, groupTexts...)
	if err := b.Rebuild(context.Background(), "beta"); err != nil {
		t.Fatalf("rebuild of another tenant: %v", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := b.Rebuild(context.Background(), "acme"); err != nil {
		t.Fatalf("rebuild after the lease was released: %v", err)
	}
}

func TestRebuildAtStart(t *testing.T) {
	e := newEnv(t)
	e.put(t, "acme", 0, groupTexts...)
	e.put(t, "beta", 0, groupTexts[:2]...)
	e.put(t, "gamma", 0, groupTexts...)
	first := e.module(t, testConfig())
	marker := topics.Tree{Tenant: "gamma", Built: testStart.Add(-time.Hour), Roots: []*topics.Node{}}
	if err := first.trees.Save(context.Background(), marker, nil); err != nil {
		t.Fatal(err)
	}

	m := e.start(t, testConfig()) // returns once the start-up scan is over
	for tenant, n := range map[string]int{"acme": len(groupTexts), "beta": 2} {
		tree, err := m.trees.Load(context.Background(), tenant)
		if err != nil || tree.Memories != n {
			t.Fatalf("%s: tree of %d memories (%v), want %d", tenant, tree.Memories, err, n)
		}
	}
	if tree, err := m.trees.Load(context.Background(), "gamma"); err != nil || !tree.Built.Equal(marker.Built) {
		t.Fatalf("gamma had a tree and was rebuilt anyway: built %v (%v)", tree.Built, err)
	}
	if got := counter(t, m.rebuilds, "ok"); got != 2 {
		t.Fatalf("%g start-up rebuilds, want 2", got)
	}
}

func TestStopRunsPendingRebuilds(t *testing.T) {
	e := newEnv(t)
	m := e.module(t, testConfig())
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-m.scanned
	e.put(t, "acme", 0, groupTexts...)
	e.publishStored(t, "acme")
	waitEvents(t, m, "acme", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := counter(t, m.rebuilds, "ok"); got != 1 {
		t.Fatalf("%g rebuilds after stop, want the pending one run", got)
	}
}

func TestRebuildLeavesOutArchivedAndSuperseded(t *testing.T) {
	e := newEnv(t)
	ids := e.put(t, "acme", 0, groupTexts...)
	for i, change := range []func(m *memory.Memory){
		func(m *memory.Memory) { m.Archived = true },
		func(m *memory.Memory) { at := testStart; m.InvalidAt, m.SupersededBy = &at, ids[2] },
	} {
		m, err := e.store.Get(context.Background(), "acme", ids[i])
		if err != nil {
			t.Fatal(err)
		}
		change(&m)
		if err := e.store.Upsert(context.Background(), []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	m := e.module(t, testConfig())
	if err := m.Rebuild(context.Background(), "acme"); err != nil {
		t.Fatal(err)
	}
	tree, err := m.trees.Load(context.Background(), "acme")
	if err != nil || tree.Memories != 2 {
		t.Fatalf("tree of %d memories (%v), want the 2 valid ones", tree.Memories, err)
	}
	for _, n := range allNodes(tree) {
		if slices.Contains(n.MemoryIDs, ids[0]) || slices.Contains(n.MemoryIDs, ids[1]) {
			t.Fatalf("topic %s holds an archived or superseded memory: %v", n.ID, n.MemoryIDs)
		}
	}
}
