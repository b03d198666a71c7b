package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	reconnectWait    = time.Second
	pingInterval     = 20 * time.Second
	apiTimeout       = 10 * time.Second
	drainTimeout     = 30 * time.Second
	closeStopTimeout = 30 * time.Second
	setupRetryWait   = time.Second
)

// Bus is a connection to JetStream with the pipeline's streams declared.
type Bus struct {
	cfg    Config
	log    *slog.Logger
	srv    *server.Server  // nil when connected by URL
	opts   *server.Options // the embedded server's, reloaded to restart JetStream (under recoverMu)
	nc     *nats.Conn
	js     jetstream.JetStream
	closed chan struct{} // closed by nats when the connection is closed

	mu        sync.Mutex
	consumers map[*Consumer]struct{}
	closeOnce sync.Once
	closeErr  error

	connErr atomic.Pointer[error] // the last failed (re)connect attempt
	// diskRefused holds the subject families (recollect.conv, ...) whose
	// publish failed on a full disk; the next publish of a family that
	// succeeds clears it. While one is held the bus is not ready.
	diskRefused sync.Map
	diskSeen    sync.Map    // families ever refused on a full disk
	diskEver    atomic.Bool // diskSeen holds anything: publishes skip the bookkeeping until then

	// After a full disk (see recover.go): diskHit is set until JetStream
	// was restarted, recovering while it is.
	diskHit    atomic.Bool
	recovering atomic.Bool
	recoverErr atomic.Pointer[error] // the last failed restart
	recoveries atomic.Uint64
	recoverMu  sync.Mutex
	watchStop  context.CancelFunc
	watchDone  chan struct{}
}

// lastConnectErr is why the last connect attempt failed, if one did.
func (b *Bus) lastConnectErr() error {
	if p := b.connErr.Load(); p != nil {
		return *p
	}
	return b.nc.LastError()
}

// Open connects to cfg.URL (reconnecting forever), or starts an embedded
// server in cfg.DataDir/nats when URL is empty, and declares the streams.
// It waits up to cfg.ConnectTimeout for the server to answer.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*Bus, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Bus{cfg: cfg, log: log, closed: make(chan struct{}), consumers: map[*Consumer]struct{}{}}
	opts := []nats.Option{
		nats.Name(cfg.ClientName),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.PingInterval(pingInterval),
		nats.DrainTimeout(drainTimeout),
		nats.ClosedHandler(func(*nats.Conn) { close(b.closed) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "error", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("nats reconnected", "url", nc.ConnectedUrlRedacted()) }),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				b.connErr.Store(&err)
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Warn("nats async error", "subject", subject, "error", err)
		}),
	}
	url := cfg.URL
	if url == "" {
		srv, sopts, err := startEmbedded(cfg, log, func() { b.diskHit.Store(true) })
		if err != nil {
			return nil, fmt.Errorf("open bus: %w", err)
		}
		b.srv, b.opts = srv, sopts
		opts = append(opts, nats.InProcessServer(srv))
	} else {
		// Keep trying in the background so a server that starts after us
		// (compose, Kubernetes) is picked up; Open bounds the wait below.
		opts = append(opts, nats.RetryOnFailedConnect(true))
		if cfg.CredsFile != "" {
			opts = append(opts, nats.UserCredentials(cfg.CredsFile))
		}
		if cfg.TLS.Set() {
			tc, err := cfg.TLS.Config(nil)
			if err != nil {
				return nil, fmt.Errorf("open bus: nats %w", err)
			}
			opts = append(opts, nats.Secure(tc))
		}
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		b.shutdownServer()
		return nil, fmt.Errorf("open bus: connect nats %s: %w", redactURL(url), err)
	}
	b.nc = nc
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(apiTimeout))
	if err != nil {
		b.abort()
		return nil, fmt.Errorf("open bus: jetstream: %w", err)
	}
	b.js = js
	if err := b.setup(ctx); err != nil {
		b.abort()
		return nil, fmt.Errorf("open bus: %w", err)
	}
	if b.srv != nil && b.cfg.DataDir != "" {
		b.startDiskWatch()
	}
	log.Info("bus open", "embedded", b.srv != nil, "url", b.ClientURL())
	return b, nil
}

// setup declares the streams, retrying until the server answers or
// ConnectTimeout passes.
func (b *Bus) setup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.ConnectTimeout)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(ctx, apiTimeout)
		err := ensureStreams(actx, b.js, b.cfg)
		acancel()
		if err == nil {
			return nil
		}
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.Code != 503 {
			return err // the server answered no: waiting will not help
		}
		select {
		case <-ctx.Done():
			if last := b.lastConnectErr(); last != nil && !b.nc.IsConnected() {
				// Why the connection fails (TLS, auth) says more than the timeout.
				err = fmt.Errorf("%w (last connect error: %v)", err, last)
			}
			return fmt.Errorf("nats not ready within %s: %w", b.cfg.ConnectTimeout, err)
		case <-time.After(setupRetryWait):
			b.log.Warn("waiting for nats", "error", err)
		}
	}
}

// JetStream is the JetStream context, for what the bus does not wrap.
func (b *Bus) JetStream() jetstream.JetStream { return b.js }

// Conn is the underlying NATS connection.
func (b *Bus) Conn() *nats.Conn { return b.nc }

// ClientURL is where other processes can reach the embedded server ("" when
// it is in-process only), or the configured URL when connected to one.
func (b *Bus) ClientURL() string {
	if b.srv == nil {
		return redactURL(b.cfg.URL)
	}
	if b.cfg.EmbeddedListen == "" {
		return ""
	}
	return b.srv.ClientURL()
}

// Ready reports whether the connection is up and JetStream answers.
func (b *Bus) Ready(ctx context.Context) error {
	if b.recovering.Load() { // the account info would wait for JetStream
		return fmt.Errorf("%w: %s", ErrUnavailable, b.diskNotReady())
	}
	if st := b.nc.Status(); st != nats.CONNECTED {
		return fmt.Errorf("%w: nats connection %s", ErrUnavailable, st)
	}
	if _, err := b.js.AccountInfo(ctx); err != nil {
		return b.explain(fmt.Errorf("jetstream account info: %w", classify(err)))
	}
	if why, full := b.diskFull(); full {
		return fmt.Errorf("%w: %s in %s", ErrUnavailable, why, filepath.Join(b.cfg.DataDir, "nats"))
	}
	if why := b.diskNotReady(); why != "" {
		return fmt.Errorf("%w: %s", ErrUnavailable, why)
	}
	return nil
}

// Close stops consumers still running, drains the connection and shuts the
// embedded server down. It is safe to call more than once.
func (b *Bus) Close() error {
	b.closeOnce.Do(func() {
		b.stopDiskWatch()
		ctx, cancel := context.WithTimeout(context.Background(), closeStopTimeout)
		defer cancel()
		var errs []error
		for _, c := range b.runningConsumers() {
			if err := c.Stop(ctx); err != nil {
				errs = append(errs, fmt.Errorf("stop consumer %s: %w", c.cfg.Durable, err))
			}
		}
		if err := b.nc.Drain(); err != nil {
			b.nc.Close()
		}
		select {
		case <-b.closed:
		case <-time.After(drainTimeout + time.Second):
			b.nc.Close()
		}
		b.shutdownServer()
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// abort tears down a half-opened bus.
func (b *Bus) abort() {
	b.nc.Close()
	b.shutdownServer()
}

func (b *Bus) shutdownServer() {
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
}

func (b *Bus) track(c *Consumer) {
	b.mu.Lock()
	b.consumers[c] = struct{}{}
	b.mu.Unlock()
}

func (b *Bus) untrack(c *Consumer) {
	b.mu.Lock()
	delete(b.consumers, c)
	b.mu.Unlock()
}

func (b *Bus) runningConsumers() []*Consumer {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*Consumer, 0, len(b.consumers))
	for c := range b.consumers {
		out = append(out, c)
	}
	return out
}
