package deploytest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
)

// TestScenarioAgainstOneProcess runs the deployment scenario against
// `recollect run` in this process, keys on, as the image runs it.
func TestScenarioAgainstOneProcess(t *testing.T) {
	key, setting, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	var cfg app.Config
	fs := pflag.NewFlagSet("recollect", pflag.ContinueOnError)
	cfg.RegisterFlags(fs, "")
	if err := fs.Parse([]string{"--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--api-keys", setting}); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	url := a.Web().URL()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := RememberAndRecall(ctx, url, url, key, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Memories[0].Memory.Tenant; got != Tenant {
		t.Errorf("recalled memory of tenant %q, want %q", got, Tenant)
	}

	// A wrong key is refused at once, not polled until the deadline.
	other, _, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RememberAndRecall(ctx, url, url, other, 100*time.Millisecond); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("with an unknown key: %v, want unauthorized", err)
	}
}
