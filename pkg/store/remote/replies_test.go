package remote

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/recollect-dev/recollect/pkg/store"
)

// fakeServer hands the test every request on the default subjects, to be
// answered by hand.
func fakeServer(t *testing.T, nc *nats.Conn) chan *nats.Msg {
	t.Helper()
	reqs := make(chan *nats.Msg, 16)
	if _, err := nc.Subscribe(DefaultSubjectPrefix+".*", func(m *nats.Msg) { reqs <- m }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return reqs
}

func publishChunk(t *testing.T, nc *nats.Conn, subject, chunk, data string) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = []byte(data)
	if chunk != "" {
		m.Header.Set(headerChunk, chunk)
	}
	if err := nc.PublishMsg(m); err != nil {
		t.Fatal(err)
	}
}

func TestCloseWakesWaitingRequest(t *testing.T) {
	ns := startNATS(t)
	reqs := fakeServer(t, connect(t, ns))
	c := NewClient(connect(t, ns))
	result := make(chan error, 1)
	go func() { _, err := c.Tenants(context.Background()); result <- err }()
	<-reqs // the request is out; nobody will answer
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-result; !errors.Is(err, store.ErrClosed) {
		t.Fatalf("waiting request after close: err = %v, want ErrClosed", err)
	}
}

// TestReplyProtocol answers requests by hand: chunked, late, and broken.
func TestReplyProtocol(t *testing.T) {
	ns := startNATS(t)
	srv := connect(t, ns)
	reqs := fakeServer(t, srv)
	c := NewClient(connect(t, ns), WithRequestTimeout(2*time.Second))
	ctx := context.Background()

	ask := func() (chan []string, chan error, *nats.Msg) {
		names, errs := make(chan []string, 1), make(chan error, 1)
		go func() {
			ts, err := c.Tenants(ctx)
			names <- ts
			errs <- err
		}()
		return names, errs, <-reqs
	}

	t.Run("chunks reassembled", func(t *testing.T) {
		names, errs, req := ask()
		body := `{"result":{"tenants":["alpha","beta"]}}`
		publishChunk(t, srv, req.Reply, "1/3", body[:10])
		publishChunk(t, srv, req.Reply, "2/3", body[10:20])
		publishChunk(t, srv, req.Reply, "3/3", body[20:])
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if got := <-names; !reflect.DeepEqual(got, []string{"alpha", "beta"}) {
			t.Fatalf("tenants = %v", got)
		}
	})
	t.Run("chunk out of order", func(t *testing.T) {
		_, errs, req := ask()
		publishChunk(t, srv, req.Reply, "2/2", `x`)
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "chunk") {
			t.Fatalf("err = %v, want a chunk error", err)
		}
	})
	t.Run("bad chunk header", func(t *testing.T) {
		_, errs, req := ask()
		publishChunk(t, srv, req.Reply, "1/3", `{"res`)
		publishChunk(t, srv, req.Reply, "two of three", `ult"`)
		if err := <-errs; err == nil || !strings.Contains(err.Error(), headerChunk) {
			t.Fatalf("err = %v, want a bad header error", err)
		}
	})
	t.Run("undecodable reply", func(t *testing.T) {
		_, errs, req := ask()
		publishChunk(t, srv, req.Reply, "", `not json`)
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "decode reply") {
			t.Fatalf("err = %v, want a decode error", err)
		}
	})
	t.Run("late replies are dropped", func(t *testing.T) {
		short := NewClient(connect(t, ns), WithRequestTimeout(20*time.Millisecond))
		if _, err := short.Tenants(ctx); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err = %v, want a timeout", err)
		}
		late := <-reqs
		// A late, chunked reply must not wedge the client's reply inbox.
		publishChunk(t, srv, late.Reply, "1/2", `{"result":`)
		publishChunk(t, srv, late.Reply, "2/2", `{"tenants":["late"]}}`)
		got := make(chan []string, 1)
		go func() { ts, _ := short.Tenants(ctx); got <- ts }()
		fresh := <-reqs
		publishChunk(t, srv, fresh.Reply, "", `{"result":{"tenants":["fresh"]}}`)
		if ts := <-got; !reflect.DeepEqual(ts, []string{"fresh"}) {
			t.Fatalf("tenants = %v, want the fresh reply", ts)
		}
	})
}

func TestParseChunk(t *testing.T) {
	tests := []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"1/1", 1, 1, true}, {"3/7", 3, 7, true},
		{"0/1", 0, 0, false}, {"2/1", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false}, {"-1/2", 0, 0, false}, {"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			i, n, err := parseChunk(tt.in)
			if (err == nil) != tt.ok || i != tt.i || n != tt.n {
				t.Fatalf("parseChunk(%q) = %d, %d, %v", tt.in, i, n, err)
			}
		})
	}
}
