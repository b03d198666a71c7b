package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embed/cache"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/modules"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/web"
)

// App is one process: its modules, its shared backends and its listener.
type App struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	reg     *prometheus.Registry
	web     *web.Server
	auth    *auth.Authenticator
	mods    *modules.Manager
	domains *domains.Registry
	readyz  *readiness

	// Backends not reached at start, retried in the background on the
	// clock after (time.After unless a test injects one).
	waits      backendWaits
	after      func(time.Duration) <-chan time.Time
	waitCtx    context.Context
	waitCancel context.CancelFunc
	waitGroup  sync.WaitGroup

	// Backends, filled in by their modules' init functions.
	bus   *bus.Bus
	mbus  *meteredBus
	store store.Store
	locks lock.Locker
	usage usage.Sink
	// usageReader reads back what the usage sink writes (GET /v1/usage).
	usageReader usage.Reader
	// audit is the consolidation audit log (ClickHouse with
	// --clickhouse-dsn, else day files in the data dir), metered.
	audit auditlog.Log
	model embed.Embedder
	// queryModel embeds recall queries, recorded under the query
	// component: the same model, with the built-in one's integer products
	// unless --query-integer-products=false.
	queryModel embed.Embedder
	// importModel embeds imported memories that come without vectors,
	// recorded under the query component: what it makes is stored, so it
	// is the document model (model), never the query one.
	importModel embed.Embedder
	caches      []*cache.Embedder

	queryRoutes []func(handle func(pattern string, h http.Handler), baseURL string)
	onReady     []func(url string)
}

// Option adjusts an App.
type Option func(*App)

// WithQueryRoutes mounts more routes when the query module starts; they get
// the listener's base URL, e.g. to call this process's own API (MCP).
func WithQueryRoutes(mount func(handle func(pattern string, h http.Handler), baseURL string)) Option {
	return func(a *App) { a.queryRoutes = append(a.queryRoutes, mount) }
}

// WithReady calls ready once Start has bound the listener and started the
// modules (e.g. to print a banner on a terminal).
func WithReady(ready func(url string)) Option {
	return func(a *App) { a.onReady = append(a.onReady, ready) }
}

// New validates the configuration and builds the module table.
func New(cfg Config, log *slog.Logger, opts ...Option) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	doms, err := domains.Load(cfg.Domains)
	if err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log, now: time.Now, after: time.After, reg: reg, mods: modules.New(log), domains: doms, readyz: newReadiness(reg)}
	a.waitCtx, a.waitCancel = context.WithCancel(context.Background())
	authn, err := auth.New(cfg.Auth, reg, log, a.now)
	if err != nil {
		return nil, err
	}
	a.auth = authn
	a.web = web.New(cfg.Web, reg, func() error { return a.readyz.observe(a.ready()) }, log)
	a.web.Use(authn.Middleware)
	for _, o := range opts {
		o(a)
	}
	a.registerModules()
	return a, nil
}

// Web is the process's HTTP server (for tests: its bound address).
func (a *App) Web() *web.Server { return a.web }

// Bus is the process's bus, once the bus module started.
func (a *App) Bus() *bus.Bus { return a.bus }

// Audit is the process's audit log, once the audit-log module started.
func (a *App) Audit() auditlog.Log { return a.audit }

func (a *App) ready() error {
	if !a.mods.Ready() {
		return errors.New("modules starting, stopping or failed")
	}
	if err := a.waits.err(); err != nil {
		return err
	}
	if a.bus != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := a.bus.Ready(ctx); err != nil {
			return fmt.Errorf("nats: %w", err)
		}
	}
	return nil
}

// Start binds the listener and starts the target modules.
func (a *App) Start(ctx context.Context) error {
	if err := a.cfg.checkExposure(a.auth.Enabled()); err != nil {
		return err
	}
	if !a.auth.Enabled() && a.cfg.exposed() {
		a.log.Warn("serving the API without authentication (--insecure): any client can act for any tenant", "http", a.cfg.Web.Addr)
	}
	a.warnSplit()
	if err := a.web.Listen(); err != nil {
		return err
	}
	if err := a.mods.Start(ctx, a.cfg.Targets); err != nil {
		a.stopWaits()
		_ = a.web.Shutdown(context.WithoutCancel(ctx))
		return err
	}
	a.log.Info("recollect ready", "targets", a.cfg.Targets, "http", a.web.URL(), "store", a.cfg.storeBackend())
	for _, ready := range a.onReady {
		ready(a.web.URL())
	}
	return nil
}

// warnSplit warns when a split deployment uses a backend that only works
// inside one process.
func (a *App) warnSplit() {
	if a.cfg.singleProcess() {
		return
	}
	if a.cfg.Bus.URL == "" {
		a.log.Warn("split deployment with the embedded NATS server: other processes cannot reach this queue; set --nats-url")
	}
	if a.cfg.Redis.URL == "" {
		a.log.Warn("split deployment with in-process leases: set --redis-url so leases hold across processes")
	}
	if a.cfg.ClickHouse.DSN == "" {
		a.log.Warn("split deployment with the local usage and audit logs: set --clickhouse-dsn to collect model usage and the audit log in one place")
	}
}

// Wait blocks until ctx ends (a signal) or a module fails.
func (a *App) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-a.mods.Failed():
		return err
	case err := <-a.web.Failed():
		return fmt.Errorf("http server: %w", err)
	}
}

// Stop drains and stops every module in reverse order, then the listener.
func (a *App) Stop(ctx context.Context) error {
	a.stopWaits()
	err := a.mods.Stop(ctx)
	return errors.Join(err, a.web.Shutdown(ctx))
}

// StopTimeout bounds Stop in Run: draining the modules (handlers in flight
// finish and settle their messages) and the HTTP server together. A
// supervisor's grace period before SIGKILL must be longer.
const StopTimeout = time.Minute

// Run starts, waits for ctx or a failure, and stops.
func (a *App) Run(ctx context.Context) error {
	if err := a.Start(ctx); err != nil {
		return err
	}
	waitErr := a.Wait(ctx)
	a.log.Info("stopping", "reason", fmt.Sprint(waitErr))
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	return errors.Join(waitErr, a.Stop(stopCtx))
}
