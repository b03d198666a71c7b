package qdrant

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// blackhole accepts TCP connections and never answers, as a firewalled or
// hung server does; it counts the connections it took.
func blackhole(t *testing.T) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String(), func() int { mu.Lock(); defer mu.Unlock(); return len(conns) }
}

// Open against a server that never answers gives up when its timeout (or
// ctx) ends, instead of hanging; the test would time out if it did not.
func TestOpenUnresponsiveServer(t *testing.T) {
	addr, accepted := blackhole(t)
	t.Run("timeout", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Timeout = 200 * time.Millisecond
		s, err := Open(t.Context(), cfg, addr, "m", 8, nil)
		if err == nil {
			s.Close()
			t.Fatal("open against a silent server succeeded")
		}
		if status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), addr) {
			t.Fatalf("err = %v, want a deadline naming %s", err, addr)
		}
		if accepted() == 0 {
			t.Fatal("open never connected, so the test proved nothing")
		}
	})
	t.Run("ctx", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		cfg := DefaultConfig()
		cfg.Timeout = time.Hour
		if s, err := Open(ctx, cfg, addr, "m", 8, nil); err == nil {
			s.Close()
			t.Fatal("open against a silent server succeeded")
		}
	})
	t.Run("cancelled ctx", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if s, err := Open(ctx, DefaultConfig(), addr, "m", 8, nil); err == nil {
			s.Close()
			t.Fatal("open with a cancelled context succeeded")
		}
	})
}

func TestOpenRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg := DefaultConfig()
	cfg.Timeout = time.Minute
	if s, err := Open(t.Context(), cfg, addr, "m", 8, nil); err == nil {
		s.Close()
		t.Fatal("open against a closed port succeeded")
	} else if status.Code(err) != codes.Unavailable {
		t.Fatalf("err = %v, want Unavailable (fail fast, not wait the timeout)", err)
	}
}

func TestOpenRejectsBadArguments(t *testing.T) {
	bad := DefaultConfig()
	bad.Timeout = 0
	for _, tc := range []struct {
		name  string
		cfg   Config
		addr  string
		model string
		dim   int
		want  string
	}{
		{"config", bad, "localhost:6334", "m", 8, "qdrant-timeout"},
		{"no port", DefaultConfig(), "localhost", "m", 8, "host:port"},
		{"bad port", DefaultConfig(), "localhost:http", "m", 8, "port"},
		{"port range", DefaultConfig(), "localhost:70000", "m", 8, "port"},
		{"dim", DefaultConfig(), "localhost:6334", "m", 0, "dimension"},
		{"model", DefaultConfig(), "localhost:6334", "", 8, "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), tc.cfg, tc.addr, tc.model, tc.dim, nil)
			if err == nil {
				s.Close()
				t.Fatal("open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one about %s", err, tc.want)
			}
		})
	}
}
