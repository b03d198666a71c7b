// Package clienttest starts a real single-process Recollect (embedded NATS,
// local store, built-in model) on a free loopback port for the tests of API
// clients: the Go client, the CLI client commands and the MCP server.
package clienttest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
)

// Start runs every module in this process on a temporary data directory
// until the test ends. configure, when given, adjusts the configuration
// (e.g. cfg.Auth.Keys) before the app is built.
func Start(tb testing.TB, configure ...func(*app.Config)) *app.App {
	tb.Helper()
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("clienttest", pflag.ContinueOnError), "")
	cfg.DataDir = tb.TempDir()
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Topiary.Debounce = 200 * time.Millisecond
	for _, f := range configure {
		f(&cfg)
	}
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatalf("build app: %v", err)
	}
	if err := a.Start(context.Background()); err != nil {
		tb.Fatalf("start app: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			tb.Errorf("stop app: %v", err)
		}
	})
	return a
}

// Eventually polls cond every 50ms until it returns nil, failing the test
// with its last error once timeout has passed.
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() error) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
