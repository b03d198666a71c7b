package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

const waitFor = 30 * time.Second

// syncBuf collects every log line of a test (the secret-leak check reads it).
type syncBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type env struct {
	t      *testing.T
	cfg    Config
	bus    *bus.Bus
	store  *Store
	mems   *local.Store
	api    *httptest.Server
	logs   *syncBuf
	log    *slog.Logger
	busDir string
}

func testConfig() Config {
	c := DefaultConfig()
	c.AllowPrivate = true // the receiver is an httptest server on loopback
	c.Timeout = time.Second
	c.RetryBase, c.RetryMax = 20*time.Millisecond, 100*time.Millisecond
	c.MaxAttempts = 4
	return c
}

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	logs := &syncBuf{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("logs:\n" + logs.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	busDir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: busDir, EmbeddedListen: "127.0.0.1:0"}, log)
	if err != nil {
		t.Fatalf("open bus: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	st, err := OpenStore(ctx, b.JetStream())
	if err != nil {
		t.Fatal(err)
	}
	mems, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mems.Close() })
	e := &env{t: t, cfg: cfg, bus: b, busDir: busDir, store: st, mems: mems, logs: logs, log: log}
	api := NewAPI(cfg, st, func(_ context.Context, requested string) (string, error) {
		if requested == "" {
			return "acme", nil
		}
		return requested, nil
	}, log, time.Now)
	mux := http.NewServeMux()
	api.Routes(mux.Handle)
	e.api = httptest.NewServer(mux)
	t.Cleanup(e.api.Close)
	return e
}

// startSender runs a sender on b (the env's bus unless another is given).
func (e *env) startSender(b *bus.Bus) *Sender {
	e.t.Helper()
	if b == nil {
		b = e.bus
	}
	s, err := NewSender(e.cfg, b, e.store, e.mems, nil, e.log, time.Now)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	})
	return s
}

// call makes an API request and decodes a JSON answer into out.
func (e *env) call(method, path string, body any, out any) int {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, e.api.URL+path, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			e.t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func (e *env) create(url string, types ...string) View {
	e.t.Helper()
	var v View
	if code := e.call("POST", "/v1/webhooks", CreateRequest{URL: url, Types: types}, &v); code != http.StatusCreated {
		e.t.Fatalf("create webhook: status %d", code)
	}
	return v
}

// remember stores a memory and announces it as the embedder does.
func (e *env) remember(id string, op memory.StoredOp, mutate ...func(*memory.Memory)) {
	e.t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	m := memory.Memory{ID: id, Tenant: "acme", Namespace: memory.DefaultNamespace, Content: "content of " + id, Domain: "general",
		Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, Importance: 0.5,
		CreatedAt: now, ModifiedAt: now, Vector: []float32{1, 0, 0, 0}}
	for _, f := range mutate {
		f(&m)
	}
	if op != memory.StoredDeleted {
		if err := e.mems.Upsert(ctx, []memory.Memory{m}); err != nil {
			e.t.Fatal(err)
		}
	}
	e.publish(bus.StoredSubject("acme"), memory.StoredEvent{Tenant: "acme", ID: id, Op: op, Domain: "general", SourceEvent: id + ":" + string(op), State: memory.StoredState(&m)})
}

var published int

func (e *env) publish(subject string, v any) {
	e.t.Helper()
	data, _ := json.Marshal(v)
	published++
	if err := e.bus.Publish(context.Background(), bus.Msg{Subject: subject, ID: "test:" + strconv.Itoa(published), Data: data}); err != nil {
		e.t.Fatal(err)
	}
}

// hit is one request a receiver got.
type hit struct {
	id, ts, sig string
	body        []byte
	payload     struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
}

// receiver is a real HTTP endpoint whose answers a test scripts.
type receiver struct {
	mu     sync.Mutex
	hits   []hit
	answer func(n int, h hit) int // status for the n-th request (0-based)
	srv    *httptest.Server
}

func newReceiver(t *testing.T, answer func(n int, h hit) int) *receiver {
	r := &receiver{answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		h := hit{id: req.Header.Get(HeaderID), ts: req.Header.Get(HeaderTimestamp), sig: req.Header.Get(HeaderSignature), body: body}
		_ = json.Unmarshal(body, &h.payload)
		r.mu.Lock()
		n := len(r.hits)
		r.hits = append(r.hits, h)
		r.mu.Unlock()
		status := http.StatusOK
		if r.answer != nil {
			status = r.answer(n, h)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) all() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// delivered are the hits answered 2xx would be, deduplicated by webhook-id
// as a receiver does, in arrival order of their first success.
func (r *receiver) waitDistinct(t *testing.T, n int) []hit {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		var out []hit
		seen := map[string]bool{}
		for _, h := range r.all() {
			if !seen[h.id] {
				seen[h.id] = true
				out = append(out, h)
			}
		}
		if len(out) >= n {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("receiver got %d distinct events, want %d", len(out), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
