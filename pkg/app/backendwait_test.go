package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/testserver"
)

// fakeAfter is an injected clock for the backend retry loops: a wait
// ends only when the test fires it, and every wait asked for is recorded.
type fakeAfter struct {
	mu      sync.Mutex
	waits   []time.Duration
	pending []chan time.Time
}

func (f *fakeAfter) after(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, d)
	c := make(chan time.Time, 1)
	f.pending = append(f.pending, c)
	return c
}

// fire ends every wait in progress.
func (f *fakeAfter) fire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.pending {
		c <- time.Now()
	}
	f.pending = nil
}

func (f *fakeAfter) asked() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

// readyz answers /readyz of u: its status and body.
func readyz(u string) (int, string, error) {
	resp, err := http.Get(u + "/readyz")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// TestWorkerWaitsForBackends: an extractor and a query process started
// while Redis and ClickHouse are down start anyway, answer /readyz with a
// 503 naming each backend they wait for, retry with a backoff that doubles
// up to its cap, and become ready once the backends are up.
func TestWorkerWaitsForBackends(t *testing.T) {
	rdb := testserver.StartRedis(t)
	ch := testserver.StartClickHouse(t)
	rdb.Stop(t)
	ch.Stop(t)

	var cfg Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Targets = []string{TargetExtractor, TargetQuery}
	cfg.Redis.URL = rdb.URL()
	cfg.ClickHouse.DSN = ch.DSN()
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeAfter{}
	a.after = clock.after
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start with Redis and ClickHouse down: %v", err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	u := a.Web().URL()

	want := []string{"waiting for redis", "waiting for clickhouse (usage log)", "waiting for clickhouse (audit log)"}
	testserver.WaitFor(t, 30*time.Second, func() error {
		code, body, err := readyz(u)
		if err != nil {
			return err
		}
		if code != http.StatusServiceUnavailable {
			return fmt.Errorf("/readyz %d %q, want 503", code, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				return fmt.Errorf("/readyz %q does not say %q", body, w)
			}
		}
		return nil
	})

	// Six retries while down: each backend's wait doubles, capped.
	for round := 1; round <= 7; round++ {
		testserver.WaitFor(t, 30*time.Second, func() error {
			if n := len(clock.asked()); n < round*len(want) {
				return fmt.Errorf("%d waits asked for, want %d", n, round*len(want))
			}
			return nil
		})
		if round < 7 {
			clock.fire()
		}
	}
	counts := map[time.Duration]int{}
	for _, d := range clock.asked() {
		counts[d]++
	}
	for _, d := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second} {
		if counts[d] != len(want) {
			t.Fatalf("waits asked for %v: want each of 0.5s..16s once per backend", clock.asked())
		}
	}
	if counts[waitMaxBackoff] != len(want) || len(counts) != 7 {
		t.Fatalf("waits asked for %v: want the cap %s after 16s", clock.asked(), waitMaxBackoff)
	}
	if code, _, _ := readyz(u); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d while the backends are down", code)
	}

	rdb.Start(t)
	ch.Start(t)
	testserver.WaitFor(t, 60*time.Second, func() error {
		clock.fire()
		code, body, err := readyz(u)
		if err != nil {
			return err
		}
		if code != http.StatusOK {
			return fmt.Errorf("/readyz %d %q, want 200", code, body)
		}
		return nil
	})
}
