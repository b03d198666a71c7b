package testserver

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRedisAnswersAndStops(t *testing.T) {
	var addr string
	t.Run("start", func(t *testing.T) {
		addr = Redis(t)
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Fatalf("addr = %q, want loopback", addr)
		}
		if err := redisPing(addr); err != nil {
			t.Fatalf("ping running server: %v", err)
		}
		other := Redis(t)
		if other == addr {
			t.Fatalf("two servers share address %s", addr)
		}
	})
	// The subtest's cleanup has run: the server must be gone.
	if err := redisPing(addr); err == nil {
		t.Fatalf("server on %s still answers after cleanup", addr)
	}
}

func TestRedisURL(t *testing.T) {
	url := RedisURL(t)
	hostPort, ok := strings.CutPrefix(url, "redis://")
	if !ok || !strings.HasSuffix(hostPort, "/0") {
		t.Fatalf("url = %q, want redis://127.0.0.1:PORT/0", url)
	}
	if err := redisPing(strings.TrimSuffix(hostPort, "/0")); err != nil {
		t.Fatalf("ping %s: %v", url, err)
	}
}

// recordingTB captures Skipf/Fatalf instead of ending the test, so the
// missing-binary policy can be checked without failing this test.
type recordingTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordingTB) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestRequireBinary(t *testing.T) {
	const missing = "recollect-no-such-binary"
	const hint = "apt-get install -y recollect-no-such-binary"
	tests := []struct {
		name      string
		ci, force string
		wantFatal bool
	}{
		{name: "developer machine skips", wantFatal: false},
		{name: "ci fails", ci: "true", wantFatal: true},
		{name: "forced fails", force: "1", wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			t.Setenv(requireServersEnv, tt.force)
			rec := &recordingTB{TB: t}
			if path := RequireBinary(rec, missing, hint); path != "" {
				t.Fatalf("path = %q for a missing binary", path)
			}
			msg := rec.skipped
			if tt.wantFatal {
				msg = rec.fatal
				if rec.skipped != "" {
					t.Fatalf("skipped instead of failing: %s", rec.skipped)
				}
			} else if rec.fatal != "" {
				t.Fatalf("failed instead of skipping: %s", rec.fatal)
			}
			if !strings.Contains(msg, missing) || !strings.Contains(msg, hint) {
				t.Fatalf("message %q must name %s and %q", msg, missing, hint)
			}
		})
	}
	t.Run("present", func(t *testing.T) {
		if path := RequireBinary(t, "sh", "apt-get install -y dash"); path == "" {
			t.Fatal("empty path for sh")
		}
	})
}

func TestWaitFor(t *testing.T) {
	calls := 0
	WaitFor(t, 5*time.Second, func() error {
		calls++
		if calls < 3 {
			return fmt.Errorf("not yet (%d)", calls)
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

func TestPollStopsOnPermanentError(t *testing.T) {
	calls := 0
	err := poll(time.Hour, func() error {
		calls++
		return &permanentError{err: fmt.Errorf("gone")}
	})
	if err == nil || err.Error() != "gone" || calls != 1 {
		t.Fatalf("poll = %v after %d calls, want gone after 1", err, calls)
	}
}

func TestFreePortIsBindable(t *testing.T) {
	port := FreePort(t)
	if port <= 0 || port > 65535 {
		t.Fatalf("port = %d", port)
	}
}
