package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/store"
)

// Server answers store requests on <prefix>.<op> from one store.Store.
type Server struct {
	nc     *nats.Conn
	st     store.Store
	log    *slog.Logger
	cfg    settings
	sub    *nats.Subscription
	closed <-chan nats.SubStatus
	sem    chan struct{} // one slot per request being handled
	base   context.Context
	cancel context.CancelFunc

	stopOnce sync.Once
	stopErr  error
}

// Serve subscribes to <prefix>.* in queue group "recollect-store" (so several
// servers may share the load) and answers each request from st, at most
// WithMaxInFlight at once. ctx bounds only the setup: Serve returns once the
// NATS server has registered the subscription, so a client started after it
// finds a responder. The caller keeps ownership of nc and st; Stop closes
// neither.
func Serve(ctx context.Context, nc *nats.Conn, st store.Store, log *slog.Logger, opts ...Option) (*Server, error) {
	if nc == nil || st == nil {
		return nil, errors.New("serve remote store: nil connection or store")
	}
	cfg := newSettings(opts)
	if err := checkPrefix(cfg.prefix); err != nil {
		return nil, fmt.Errorf("serve remote store: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{nc: nc, st: st, log: log, cfg: cfg, sem: make(chan struct{}, cfg.maxInFlight)}
	s.base, s.cancel = context.WithCancel(context.Background())
	sub, err := nc.QueueSubscribe(cfg.prefix+".*", DefaultQueueGroup, s.onMsg)
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("subscribe %s.*: %w", cfg.prefix, err)
	}
	// Requests hold at most a max payload each; let the buffer hold what the
	// bounded handlers have not picked up yet without dropping any.
	if err := sub.SetPendingLimits(-1, 256<<20); err != nil {
		s.cancel()
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("set pending limits on %s.*: %w", cfg.prefix, err)
	}
	s.sub = sub
	s.closed = sub.StatusChanged(nats.SubscriptionClosed)
	if err := flush(ctx, nc); err != nil {
		s.cancel()
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("register subscription %s.*: %w", cfg.prefix, err)
	}
	log.Info("serving store over nats", "nats_subject", cfg.prefix+".*", "queue", DefaultQueueGroup, "max_in_flight", cfg.maxInFlight)
	return s, nil
}

// flush waits until the NATS server has processed everything sent so far.
func flush(ctx context.Context, nc *nats.Conn) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	return nc.FlushWithContext(ctx)
}

// Stop drains the subscription (requests already delivered are still
// answered), then waits for the requests being handled. If ctx ends first it
// cancels them and returns the context's error. Calling Stop again returns
// the first call's result.
func (s *Server) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

func (s *Server) stop(ctx context.Context) error {
	defer s.cancel()
	switch err := s.sub.Drain(); {
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrBadSubscription):
		// The connection is gone, and with it every delivery.
	case err != nil && !errors.Is(err, nats.ErrConnectionDraining):
		return fmt.Errorf("stop remote store: drain %s.*: %w", s.cfg.prefix, err)
	default:
		if err := s.waitDrained(ctx); err != nil {
			_ = s.sub.Unsubscribe()
			return fmt.Errorf("stop remote store: drain %s.*: %w", s.cfg.prefix, err)
		}
	}
	// Once the subscription is closed no callback runs, so no slot is taken
	// after this; holding every slot means no request is being handled.
	for range cap(s.sem) {
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return fmt.Errorf("stop remote store: wait for requests in flight: %w", ctx.Err())
		}
	}
	s.log.Info("stopped serving store over nats", "nats_subject", s.cfg.prefix+".*")
	return nil
}

// waitDrained waits for the drained subscription to close. A connection
// closed meanwhile never reports that, so it is checked now and then.
func (s *Server) waitDrained(ctx context.Context) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.closed:
			return nil
		case <-tick.C:
			if s.nc.IsClosed() {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// onMsg runs on the subscription's goroutine: it blocks while every slot is
// taken, which leaves further requests in the subscription's buffer.
func (s *Server) onMsg(m *nats.Msg) {
	if m.Reply == "" {
		s.log.Debug("dropped store request without reply subject", "nats_subject", m.Subject)
		return
	}
	select {
	case s.sem <- struct{}{}:
	case <-s.base.Done():
		return
	}
	go func() {
		defer func() { <-s.sem }()
		s.handle(m)
	}()
}

// handle answers one request. A panic in the store is not recovered: it may
// have left the store's locks held, and a crashed process restarts clean
// where a wedged one would hang every worker.
func (s *Server) handle(m *nats.Msg) {
	op := strings.TrimPrefix(m.Subject, s.cfg.prefix+".")
	ctx, cancel := context.WithTimeout(extractTrace(s.base, m.Header), s.requestTimeout(m))
	defer cancel()
	ctx, span := startSpan(ctx, trace.SpanKindServer, op, m.Subject)

	env := envelope{}
	result, err := s.dispatch(ctx, op, m.Data)
	if err != nil {
		encodeError(&env, err)
		s.log.Debug("store request failed", "op", op, "code", env.Code, "err", err)
	} else {
		env.Result = result
	}
	body, merr := json.Marshal(&env)
	if merr != nil {
		err = fmt.Errorf("encode %s reply: %w", op, merr)
		env = envelope{}
		encodeError(&env, err)
		body, _ = json.Marshal(&env) // only strings left: cannot fail
	}
	if perr := publishReply(s.nc, m.Reply, body); perr != nil {
		s.log.Warn("reply to store request", "op", op, "err", perr)
		err = errors.Join(err, perr)
	}
	endSpan(span, err)
}

// requestTimeout is the caller's remaining time, or the default when the
// request does not say.
func (s *Server) requestTimeout(m *nats.Msg) time.Duration {
	if v := m.Header.Get(headerTimeout); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return s.cfg.timeout
}
