package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/bus"
)

// TestPipeline runs every module with API keys and reads GET /v1/pipeline:
// a tenant key is refused; an admin key sees the modules running, the
// streams, the workers' consumers and a dead letter with its reason.
func TestPipeline(t *testing.T) {
	const tenantKey, adminKey = "pipeline-test-key-acme-000", "pipeline-test-key-admin-00"
	var cfg Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Auth.Keys = tenantKey + "=acme," + adminKey + "=ops:admin"
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_ = a.Stop(sctx)
	})
	h := nats.Header{}
	h.Set(bus.HeaderDLQReason, "undecodable: unexpected end of JSON input")
	h.Set(bus.HeaderDLQConsumer, "extractor")
	h.Set(bus.HeaderDLQSubject, "recollect.conv.acme")
	if err := a.Bus().Publish(ctx, bus.Msg{Subject: bus.DLQSubject("extractor"), ID: "dlq:test:1", Data: []byte("{"), Header: h}); err != nil {
		t.Fatal(err)
	}
	get := func(key string, out any) int {
		req, _ := http.NewRequest(http.MethodGet, a.Web().URL()+"/v1/pipeline", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if out != nil && resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode
	}
	if code := get(tenantKey, nil); code != http.StatusForbidden {
		t.Fatalf("a tenant key answered %d, want 403", code)
	}
	var p api.Pipeline
	if code := get(adminKey, &p); code != http.StatusOK {
		t.Fatalf("admin: %d", code)
	}
	running := map[string]bool{}
	for _, m := range p.Modules {
		running[m.Name] = m.Running
	}
	for _, m := range []string{"ingest", "extractor", "embedder", "consolidator", "topiary", "query"} {
		if !running[m] {
			t.Errorf("module %s not reported running: %+v", m, p.Modules)
		}
	}
	if len(p.Consumers) == 0 || len(p.Streams) < 3 {
		t.Errorf("consumers %+v, streams %+v", p.Consumers, p.Streams)
	}
	if len(p.DeadLetters) != 1 || p.DeadLetters[0].Reason != "undecodable: unexpected end of JSON input" || p.DeadLetters[0].Consumer != "extractor" {
		t.Fatalf("dead letters %+v", p.DeadLetters)
	}
}
