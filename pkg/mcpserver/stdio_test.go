package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/mcpserver"
)

// syncBuffer is the bridge's stdout, read by the test after Run returns.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Close() error { return nil }

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStdioAnswersEverythingReadBeforeEOF: a client that pipes initialize,
// tools/list and a tools/call and closes stdin at once gets all three
// answers before the bridge exits (issue 20: only id 1 came back).
func TestStdioAnswersEverythingReadBeforeEOF(t *testing.T) {
	a := clienttest.Start(t)
	s := mcpserver.New(client.New(a.Web().URL(), client.WithTenant("acme")))
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_stats","arguments":{}}}`,
	}, "\n") + "\n"
	var out syncBuffer
	if err := s.Run(context.Background(), mcpserver.Stdio(io.NopCloser(strings.NewReader(in)), &out)); err != nil {
		t.Fatalf("run: %v", err)
	}
	answers := map[float64]map[string]any{}
	for line := range strings.Lines(out.String()) {
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if id, ok := msg["id"].(float64); ok {
			answers[id] = msg
		}
	}
	for _, id := range []float64{1, 2, 3} {
		msg, ok := answers[id]
		if !ok {
			t.Errorf("no answer to id %v; got:\n%s", id, out.String())
			continue
		}
		if msg["error"] != nil {
			t.Errorf("id %v answered an error: %v", id, msg["error"])
		}
	}
	if res, _ := answers[3]["result"].(map[string]any); res != nil && res["isError"] == true {
		t.Errorf("memory_stats failed: %v", res)
	}
}
