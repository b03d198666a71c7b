package cache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/recollect-dev/recollect/internal/testserver"
)

// liveTimeout bounds operations of the tests whose Redis is up: they are
// not about timeouts, and a loaded machine can take longer than the
// default 500 ms to dial a fresh server and answer.
const liveTimeout = time.Minute

func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse redis url: %v", err)
	}
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1 // a refused connection should fail at once
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	return client
}

func TestRedisRoundTrip(t *testing.T) {
	ctx := context.Background()
	client := redisClient(t, testserver.RedisURL(t))
	r := NewRedis(client, WithTTL(time.Hour), WithKeyPrefix("test:"), WithTimeout(liveTimeout))

	// More keys than one MGET takes, with awkward floats.
	entries := map[string][]float32{}
	var keys []string
	for i := range 2*mgetKeys + 7 {
		k := Key("m", strconv.Itoa(i))
		entries[k] = []float32{float32(i), -0.5, math.SmallestNonzeroFloat32, math.MaxFloat32, float32(math.Inf(-1))}
		keys = append(keys, k)
	}
	if err := r.SetMulti(ctx, entries); err != nil {
		t.Fatalf("set: %v", err)
	}
	got, err := r.GetMulti(ctx, append(keys, Key("m", "absent")))
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if len(got) != len(entries) {
		t.Fatalf("got %d vectors, want %d", len(got), len(entries))
	}
	for k, want := range entries {
		if !slices.Equal(got[k], want) {
			t.Fatalf("vector %s = %v, want %v", k, got[k], want)
		}
	}

	raw, err := client.Get(ctx, "test:"+keys[0]).Bytes()
	if err != nil || len(raw) != 4*5 || math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])) != -0.5 {
		t.Fatalf("stored value %x (%v) is not little-endian float32s", raw, err)
	}
	ttl, err := client.TTL(ctx, "test:"+keys[0]).Result()
	if err != nil || ttl <= 0 || ttl > time.Hour {
		t.Fatalf("ttl = %v (%v), want within (0, 1h]", ttl, err)
	}
}

func TestRedisIgnoresUndecodableValues(t *testing.T) {
	ctx := context.Background()
	client := redisClient(t, testserver.RedisURL(t))
	r := NewRedis(client, WithTimeout(liveTimeout))
	k := Key("m", "x")
	if err := client.Set(ctx, DefaultKeyPrefix+k, "abc", 0).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := r.GetMulti(ctx, []string{k})
	if err != nil || len(got) != 0 {
		t.Fatalf("get damaged value = %v, %v; want absent", got, err)
	}
}

// TestRedisSharedBetweenProcesses: a second cache on the same Redis (as in
// another process) is served what the first computed.
func TestRedisSharedBetweenProcesses(t *testing.T) {
	ctx := context.Background()
	url := testserver.RedisURL(t)
	m1, m2 := newHashModel("m"), newHashModel("m")
	c1 := New(m1, NewRedis(redisClient(t, url), WithTimeout(liveTimeout)))
	c2 := New(m2, NewRedis(redisClient(t, url), WithTimeout(liveTimeout)))
	want, err := c1.Embed(ctx, []string{"alpha", "beta"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c2.Embed(ctx, []string{"beta", "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Calls()) != 0 || c2.Hits() != 2 {
		t.Fatalf("second cache computed %q (hits %d)", m2.Calls(), c2.Hits())
	}
	if !slices.Equal(got[0], want[1]) || !slices.Equal(got[1], want[0]) {
		t.Fatal("vectors out of order")
	}
	if c1.BackendErrors()+c2.BackendErrors() != 0 {
		t.Fatalf("backend errors: %d, %d", c1.BackendErrors(), c2.BackendErrors())
	}
}

func TestRedisDownStillEmbeds(t *testing.T) {
	t.Run("nothing listening", func(t *testing.T) {
		url := fmt.Sprintf("redis://127.0.0.1:%d/0", testserver.FreePort(t))
		m := newHashModel("m")
		c := New(m, NewRedis(redisClient(t, url)))
		got, err := c.Embed(context.Background(), []string{"a"})
		if err != nil || !slices.Equal(got[0], m.vector("a")) {
			t.Fatalf("embed = %v, %v", got, err)
		}
		if c.BackendErrors() != 1 || c.Misses() != 1 {
			t.Fatalf("backend errors %d misses %d, want 1 and 1", c.BackendErrors(), c.Misses())
		}
	})
	t.Run("stops answering", func(t *testing.T) {
		// Accepts connections and never replies: only the operation
		// timeout gets the embed through.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { conn.Close() })
			}
		}()
		m := newHashModel("m")
		c := New(m, NewRedis(redisClient(t, "redis://"+l.Addr().String()+"/0"), WithTimeout(100*time.Millisecond)))
		got, err := c.Embed(context.Background(), []string{"a"})
		if err != nil || !slices.Equal(got[0], m.vector("a")) {
			t.Fatalf("embed = %v, %v", got, err)
		}
		if c.BackendErrors() != 1 {
			t.Fatalf("backend errors %d, want 1", c.BackendErrors())
		}
	})
	t.Run("goes down", func(t *testing.T) {
		ctx := context.Background()
		client := redisClient(t, testserver.RedisURL(t))
		m := newHashModel("m")
		c := New(m, NewRedis(client, WithTimeout(liveTimeout)))
		if _, err := c.Embed(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Embed(ctx, []string{"a"}); err != nil || c.Hits() != 1 {
			t.Fatalf("second embed: %v, hits %d", err, c.Hits())
		}
		// SHUTDOWN closes the connection instead of replying.
		_ = client.ShutdownNoSave(ctx).Err()
		testserver.WaitFor(t, 5*time.Second, func() error {
			if client.Ping(ctx).Err() == nil {
				return errors.New("redis still answers after SHUTDOWN")
			}
			return nil
		})
		if _, err := c.Embed(ctx, []string{"a", "b"}); err != nil {
			t.Fatalf("embed with redis down: %v", err)
		}
		if c.BackendErrors() != 1 || c.Misses() != 3 {
			t.Fatalf("backend errors %d misses %d, want 1 and 3", c.BackendErrors(), c.Misses())
		}
	})
}
