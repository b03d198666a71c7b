package remote

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// blockGets makes every Get wait for release (or its context), and counts
// the Gets that entered and that finished.
func blockGets(st *memStore) (release chan struct{}, entered, finished *atomic.Int32) {
	release = make(chan struct{})
	entered, finished = new(atomic.Int32), new(atomic.Int32)
	st.setHook(func(ctx context.Context, op string) error {
		if op != opGet {
			return nil
		}
		entered.Add(1)
		defer finished.Add(1)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	return release, entered, finished
}

func TestStopDrainsInFlightAndQueued(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	st := newMemStore()
	if err := st.Upsert(ctx, fullMemories("t1", 2, 4)); err != nil {
		t.Fatal(err)
	}
	srv, err := Serve(ctx, connect(t, ns), st, nil, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(connect(t, ns))
	release, entered, finished := blockGets(st)

	results := make(chan error, 2)
	for _, id := range []string{"m-00000", "m-00001"} {
		go func() { _, err := c.Get(ctx, "t1", id); results <- err }()
	}
	// One request is in the store, the other delivered and waiting for the
	// single slot.
	waitFor(t, "both requests delivered", func() bool {
		d, _ := srv.sub.Delivered()
		return entered.Load() == 1 && d == 2
	})

	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop(ctx) }()
	waitFor(t, "subscription draining", func() bool { return !srv.sub.IsValid() || srv.sub.IsDraining() })
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while a request was still in the store", err)
	default:
	}
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	if n := finished.Load(); n != 2 {
		t.Fatalf("Stop returned with %d of 2 requests finished", n)
	}
	for range 2 {
		if err := <-results; err != nil {
			t.Fatalf("request in flight during Stop: %v", err)
		}
	}
	if err := srv.Stop(ctx); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	// Nothing is subscribed any more: no responders.
	if _, err := c.Count(ctx, "t1", store.Filter{}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("request after stop: err = %v, want ErrUnavailable", err)
	}
}

func TestStopGivesUpWithContext(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	st := newMemStore()
	srv, err := Serve(ctx, connect(t, ns), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(connect(t, ns))
	_, entered, finished := blockGets(st) // never released

	result := make(chan error, 1)
	go func() { _, err := c.Get(ctx, "t1", "x"); result <- err }()
	waitFor(t, "request in the store", func() bool { return entered.Load() == 1 })

	stopCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop(stopCtx) }()
	waitFor(t, "subscription closed", func() bool { return !srv.sub.IsValid() })
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("stop: err = %v, want context.Canceled", err)
	}
	// Giving up cancels the request, whose caller hears why.
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: err = %v, want context.Canceled from the server", err)
	}
	waitFor(t, "handler finished", func() bool { return finished.Load() == 1 })
}

func TestNoServer(t *testing.T) {
	ns := startNATS(t)
	c := NewClient(connect(t, ns))
	_, err := c.Get(context.Background(), "t1", "x")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("get without a server: err = %v, want ErrUnavailable", err)
	}
	if !contains(err.Error(), DefaultSubjectPrefix) {
		t.Fatalf("error %q does not name the subject", err)
	}
}

// TestRequestTimeout: something subscribes but never answers, so NATS has
// responders and only the timeout ends the wait.
func TestRequestTimeout(t *testing.T) {
	ns := startNATS(t)
	silent := connect(t, ns)
	timeouts := make(chan string, 10)
	if _, err := silent.Subscribe(DefaultSubjectPrefix+".*", func(m *nats.Msg) {
		timeouts <- m.Header.Get(headerTimeout)
	}); err != nil {
		t.Fatal(err)
	}
	if err := silent.Flush(); err != nil {
		t.Fatal(err)
	}
	const timeout = 100 * time.Millisecond
	c := NewClient(connect(t, ns), WithRequestTimeout(timeout))

	t.Run("client timeout", func(t *testing.T) {
		_, err := c.Count(context.Background(), "t1", store.Filter{})
		if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want ErrUnavailable and DeadlineExceeded", err)
		}
		d, err := time.ParseDuration(<-timeouts)
		if err != nil || d <= 0 || d > timeout {
			t.Fatalf("%s header = %v (%v), want (0, %s]", headerTimeout, d, err, timeout)
		}
	})
	t.Run("caller deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout/4)
		defer cancel()
		_, err := c.Count(ctx, "t1", store.Filter{})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnavailable) {
			t.Fatalf("err = %v, want the caller's DeadlineExceeded, not ErrUnavailable", err)
		}
		d, err := time.ParseDuration(<-timeouts)
		if err != nil || d <= 0 || d > timeout/4 {
			t.Fatalf("%s header = %v (%v), want (0, %s]", headerTimeout, d, err, timeout/4)
		}
	})
	t.Run("caller cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.Count(ctx, "t1", store.Filter{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestServerHonoursTimeoutHeader(t *testing.T) {
	st, c, _ := pair(t)
	deadlines := make(chan time.Duration, 1)
	st.setHook(func(ctx context.Context, op string) error {
		d, ok := ctx.Deadline()
		if !ok {
			return errors.New("handler context has no deadline")
		}
		deadlines <- time.Until(d)
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := c.Tenants(ctx); err != nil {
		t.Fatal(err)
	}
	if d := <-deadlines; d <= 0 || d > 3*time.Second {
		t.Fatalf("handler deadline in %s, want within the caller's 3s", d)
	}
}

func TestClosedConnection(t *testing.T) {
	ns := startNATS(t)
	serve(t, ns, newMemStore())
	nc := connect(t, ns)
	c := NewClient(nc)
	nc.Close()
	if err := c.Upsert(context.Background(), []memory.Memory{fullMemory("t1", 1, 4)}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("upsert on a closed connection: err = %v, want ErrUnavailable", err)
	}
}

func TestServerOnClosedConnectionStops(t *testing.T) {
	ns := startNATS(t)
	nc := connect(t, ns)
	srv, err := Serve(context.Background(), nc, newMemStore(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatalf("stop after the connection closed: %v", err)
	}
}

func TestQueueGroupSharesAndFailsOver(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	a, b := newMemStore(), newMemStore()
	srvA := serve(t, ns, a)
	serve(t, ns, b)
	c := NewClient(connect(t, ns))
	for range 40 {
		if _, err := c.Tenants(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if a.count(opTenants)+b.count(opTenants) != 40 {
		t.Fatalf("requests answered %d + %d times, want 40 in all (each once)", a.count(opTenants), b.count(opTenants))
	}
	if err := srvA.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	before := b.count(opTenants)
	for range 5 {
		if _, err := c.Tenants(ctx); err != nil {
			t.Fatalf("after one server stopped: %v", err)
		}
	}
	if b.count(opTenants)-before != 5 {
		t.Fatalf("the remaining server answered %d of 5", b.count(opTenants)-before)
	}
}

func TestSubjectPrefix(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	if _, err := Serve(ctx, connect(t, ns), newMemStore(), nil, WithSubjectPrefix("bad.>")); err == nil {
		t.Fatalf("Serve accepted a wildcard prefix")
	}
	serve(t, ns, newMemStore(), WithSubjectPrefix("team1.store"))
	if _, err := NewClient(connect(t, ns), WithSubjectPrefix("team1.store")).Tenants(ctx); err != nil {
		t.Fatalf("matching prefix: %v", err)
	}
	if _, err := NewClient(connect(t, ns)).Tenants(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("default prefix with nothing serving it: err = %v, want ErrUnavailable", err)
	}
}

// TestStopSurvivesConnectionClosingMidDrain: a closed connection never
// reports the subscription closed, so Stop must notice by itself.
func TestStopSurvivesConnectionClosingMidDrain(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	st := newMemStore()
	nc := connect(t, ns)
	srv, err := Serve(ctx, nc, st, nil, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(connect(t, ns), WithRequestTimeout(time.Second))
	release, entered, _ := blockGets(st)
	for range 2 {
		go func() { _, _ = c.Get(ctx, "t1", "x") }()
	}
	// The second request holds the subscription's callback, so the drain
	// cannot finish until the first is released.
	waitFor(t, "both requests delivered", func() bool {
		d, _ := srv.sub.Delivered()
		return entered.Load() == 1 && d == 2
	})
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop(stopCtx) }()
	waitFor(t, "subscription draining", func() bool { return srv.sub.IsDraining() })
	nc.Close()
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop after the connection closed mid-drain: %v", err)
	}
}
