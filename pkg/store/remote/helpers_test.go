package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// startNATS runs an embedded nats-server reachable only in-process.
func startNATS(t testing.TB, tune ...func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{DontListen: true, NoLog: true, NoSigs: true}
	for _, f := range tune {
		f(opts)
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("new nats server: %v", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatalf("nats server not ready")
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

// connect opens a connection to ns, closed when the test ends.
func connect(t testing.TB, ns *server.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatalf("connect to nats: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// serve serves st on its own connection to ns and stops when the test ends.
func serve(t testing.TB, ns *server.Server, st store.Store, opts ...Option) *Server {
	t.Helper()
	srv, err := Serve(context.Background(), connect(t, ns), st, nil, opts...)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Errorf("stop server: %v", err)
		}
	})
	return srv
}

// pair is a served memStore and a client on a separate connection.
func pair(t testing.TB, opts ...Option) (*memStore, *Client, *server.Server) {
	t.Helper()
	ns := startNATS(t)
	st := newMemStore()
	serve(t, ns, st, opts...)
	return st, NewClient(connect(t, ns), opts...), ns
}

// testVector is a deterministic, non-degenerate vector of dim values.
func testVector(seed, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(math.Sin(float64(seed*dim+i)*0.7311)) + 1e-3
	}
	return v
}

// fullMemory sets every field of a memory, so a lost field shows up.
func fullMemory(tenant string, i, dim int) memory.Memory {
	created := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC).Add(time.Duration(i) * time.Second)
	m := memory.Memory{
		ID:              fmt.Sprintf("m-%05d", i),
		Tenant:          tenant,
		Namespace:       "proj/a",
		Subject:         "alice",
		Channel:         "cli",
		Session:         "s-1",
		Key:             "tools/go/test",
		Content:         fmt.Sprintf("memory %d: run go test with -race ✓ \"quoted\"", i),
		Domain:          memory.DomainToolUsage,
		Type:            memory.TypeWorkflow,
		Kind:            memory.KindProcedural,
		Layer:           memory.LayerWorking,
		Importance:      0.1 + float64(i%7)/10,
		Confidence:      memory.ConfidenceExplicit,
		AccessCount:     i,
		RepetitionCount: 2,
		SuccessCount:    1,
		Tags:            []string{"go", "test"},
		Scope:           []string{"**/*.go"},
		Evidence:        "user said so",
		SourceIDs:       []string{"msg-1", "msg-2"},
		Source:          memory.SourceTurn,
		CreatedAt:       created,
		ModifiedAt:      created.Add(time.Minute),
		LastAccessed:    created.Add(time.Hour),
		ValidFrom:       created,
		Archived:        i%10 == 9,
		EmbeddingModel:  "all-MiniLM-L6-v2",
		DerivedFrom:     []string{fmt.Sprintf("m-%05d", i+100000), "src-b"},
		Epoch:           int64(i) + 1<<40,
		Vector:          testVector(i, dim),
	}
	if i%4 == 3 {
		invalid := created.Add(48 * time.Hour)
		m.InvalidAt, m.SupersededBy = &invalid, fmt.Sprintf("m-%05d", i+1)
	}
	return m
}

// everything is the filter that leaves out no memory.
var everything = store.Filter{IncludeArchived: true, IncludeSuperseded: true}

func fullMemories(tenant string, n, dim int) []memory.Memory {
	out := make([]memory.Memory, n)
	for i := range out {
		out[i] = fullMemory(tenant, i, dim)
	}
	return out
}

// sameBits reports whether two vectors are bit-for-bit equal.
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// waitFor polls cond until it is true or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func nan() float64 { return math.NaN() }
