package redislock

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/locktest"
)

func newClient(t testing.TB, url string) *redis.Client {
	t.Helper()
	c, err := NewClient(Config{URL: url})
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestAcceptance shares one server; each case gets its own client and key
// prefix, as separate processes would.
func TestAcceptance(t *testing.T) {
	url := testserver.RedisURL(t)
	var n atomic.Int64
	locktest.Run(t, func(t *testing.T) (lock.Locker, locktest.Advance) {
		prefix := "locktest:" + strconv.FormatInt(n.Add(1), 10) + ":"
		// Expiry is Redis's own clock: waiting is the only way to advance it.
		return New(newClient(t, url), WithPrefix(prefix)), time.Sleep
	})
}

func TestLeaseKeyLayout(t *testing.T) {
	ctx := context.Background()
	client := newClient(t, testserver.RedisURL(t))
	tests := []struct {
		name    string
		opts    []Option
		wantKey string
	}{
		{"default prefix", nil, "recollect:lease:tenant/acme"},
		{"custom prefix", []Option{WithPrefix("staging:")}, "staging:tenant/acme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			le, err := New(client, tt.opts...).Acquire(ctx, "tenant/acme", 30*time.Second)
			if err != nil {
				t.Fatalf("acquire: %v", err)
			}
			token, err := client.Get(ctx, tt.wantKey).Result()
			if err != nil {
				t.Fatalf("get %s: %v", tt.wantKey, err)
			}
			if len(token) != 32 || token != le.(*lease).token {
				t.Fatalf("stored token %q, want the lease's 128-bit hex token %q", token, le.(*lease).token)
			}
			pttl, err := client.PTTL(ctx, tt.wantKey).Result()
			if err != nil {
				t.Fatalf("pttl: %v", err)
			}
			if pttl <= 0 || pttl > 30*time.Second {
				t.Fatalf("pttl = %s, want in (0, 30s]", pttl)
			}
			if err := le.Release(ctx); err != nil {
				t.Fatalf("release: %v", err)
			}
			if n, err := client.Exists(ctx, tt.wantKey).Result(); err != nil || n != 0 {
				t.Fatalf("exists after release = %d, %v; want 0", n, err)
			}
		})
	}
}

// TestLockersShareLeases: two clients stand for two processes.
func TestLockersShareLeases(t *testing.T) {
	ctx := context.Background()
	url := testserver.RedisURL(t)
	a, b := New(newClient(t, url)), New(newClient(t, url))
	le, err := a.Acquire(ctx, "session/1", time.Minute)
	if err != nil {
		t.Fatalf("acquire on a: %v", err)
	}
	if _, err := b.Acquire(ctx, "session/1", time.Minute); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("acquire on b while a holds: %v, want ErrHeld", err)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatalf("release on a: %v", err)
	}
	if _, err := b.Acquire(ctx, "session/1", time.Minute); err != nil {
		t.Fatalf("acquire on b after release: %v", err)
	}
}

// TestScriptCacheFlushed: Renew and Release must survive a Redis that lost
// its script cache (restart, failover, SCRIPT FLUSH).
func TestScriptCacheFlushed(t *testing.T) {
	ctx := context.Background()
	client := newClient(t, testserver.RedisURL(t))
	l := New(client)
	le, err := l.Acquire(ctx, "k", time.Minute)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	if err := le.Renew(ctx, time.Minute); err != nil {
		t.Fatalf("renew: %v", err)
	}
	if err := client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatalf("script flush: %v", err)
	}
	if err := le.Renew(ctx, time.Minute); err != nil {
		t.Fatalf("renew after flush: %v", err)
	}
	if err := client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatalf("script flush: %v", err)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatalf("release after flush: %v", err)
	}
}

// TestRedisDown: connection errors are wrapped and never read as ErrHeld or
// ErrLost, which callers treat as normal outcomes.
func TestRedisDown(t *testing.T) {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{
		Addr:          "127.0.0.1:" + strconv.Itoa(testserver.FreePort(t)),
		MaxRetries:    -1, // one attempt keeps the test fast
		DialerRetries: 1,
	})
	t.Cleanup(func() { _ = client.Close() })
	l := New(client)
	le := &lease{l: l, key: "k", token: newToken()}
	tests := []struct {
		name string
		call func() error
	}{
		{"acquire", func() error { _, err := l.Acquire(ctx, "k", time.Minute); return err }},
		{"renew", func() error { return le.Renew(ctx, time.Minute) }},
		{"release", func() error { return le.Release(ctx) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || errors.Is(err, lock.ErrHeld) || errors.Is(err, lock.ErrLost) {
				t.Fatalf("%s against a closed port: %v, want a connection error", tt.name, err)
			}
			var ne interface{ Timeout() bool }
			if !errors.As(err, &ne) {
				t.Fatalf("%s: %v does not wrap the network error", tt.name, err)
			}
		})
	}
}

func TestMillis(t *testing.T) {
	tests := []struct {
		ttl     time.Duration
		want    int64
		wantErr bool
	}{
		{ttl: time.Second, want: 1000},
		{ttl: 1500 * time.Microsecond, want: 2},
		{ttl: time.Nanosecond, want: 1},
		{ttl: 0, wantErr: true},
		{ttl: -time.Millisecond, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.ttl.String(), func(t *testing.T) {
			got, err := millis(tt.ttl)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("millis(%s) = %d, %v; want %d, err %v", tt.ttl, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func BenchmarkAcquireRelease(b *testing.B) {
	locktest.Bench(b, New(newClient(b, testserver.RedisURL(b))))
}
