package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// benchApp fills a local store in a temporary data dir with n corpus
// memories (their vectors from vs), waits for any index the fill trains,
// then starts the app's targets on it, listening on a free loopback port.
// stop stops the app and removes the dir.
func benchApp(ctx context.Context, name string, c *corpus, vs storeVectors, n int, targets ...string) (a *app.App, cfg app.Config, stop func(), err error) {
	dir, err := os.MkdirTemp("", "recollect-bench-"+name+"-")
	if err != nil {
		return nil, cfg, nil, err
	}
	fail := func(err error) (*app.App, app.Config, func(), error) {
		os.RemoveAll(dir)
		return nil, cfg, nil, err
	}
	log := slog.New(slog.DiscardHandler)
	// The app keeps its local store in <data-dir>/store.
	s, err := local.Open(filepath.Join(dir, "store"), local.WithLogger(log))
	if err != nil {
		return fail(fmt.Errorf("open store to fill: %w", err))
	}
	if _, err := fillStore(ctx, s, c, vs, n); err != nil {
		s.Close()
		return fail(err)
	}
	// The index is saved at close, so the app opens with it ready, as a
	// long-running process would be.
	if _, err := waitIndexes(ctx, s); err != nil {
		s.Close()
		return fail(err)
	}
	if err := s.Close(); err != nil {
		return fail(fmt.Errorf("close filled store: %w", err))
	}
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	cfg.RegisterFlags(fs, app.TargetQuery)
	cfg.DataDir = dir
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Targets = targets
	if a, err = app.New(cfg, log); err != nil {
		return fail(err)
	}
	if err := a.Start(ctx); err != nil {
		return fail(err)
	}
	return a, cfg, func() {
		_ = a.Stop(context.WithoutCancel(ctx))
		os.RemoveAll(dir)
	}, nil
}
