package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/store"
)

// Client is a store.Store whose calls are answered by a Server over NATS.
// It is safe for concurrent use. It does not own the connection.
type Client struct {
	nc      *nats.Conn
	cfg     settings
	closed  atomic.Bool
	replies replies
}

// NewClient returns a store.Store that sends every call over nc. Options:
// WithSubjectPrefix, WithRequestTimeout (per request, default 10s) and
// WithScrollPageSize; an invalid subject prefix falls back to the default
// (Config.Validate reports it).
func NewClient(nc *nats.Conn, opts ...Option) *Client {
	cfg := newSettings(opts)
	if checkPrefix(cfg.prefix) != nil {
		cfg.prefix = DefaultSubjectPrefix
	}
	return &Client{nc: nc, cfg: cfg, replies: replies{nc: nc}}
}

// Close makes every later call, and any still waiting, fail with
// store.ErrClosed. The remote store and the NATS connection stay open:
// others share them.
func (c *Client) Close() error {
	c.closed.Store(true)
	c.replies.shut()
	return nil
}

// call sends req to <prefix>.<op> and decodes the reply's result into
// result (a pointer, or nil when the reply carries none).
func (c *Client) call(ctx context.Context, op string, req any, result any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("remote store %s: encode request: %w", op, err)
	}
	return c.send(ctx, op, body, result)
}

// send is call with the request already encoded.
func (c *Client) send(ctx context.Context, op string, body []byte, result any) error {
	if err := c.roundTrip(ctx, op, body, result); err != nil {
		return fmt.Errorf("remote store %s: %w", op, err)
	}
	return nil
}

func (c *Client) roundTrip(ctx context.Context, op string, body []byte, result any) error {
	if c.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.nc == nil {
		return fmt.Errorf("%w: no NATS connection", ErrUnavailable)
	}
	subject := c.cfg.prefix + "." + op
	ctx, span := startSpan(ctx, trace.SpanKindClient, op, subject)
	err := c.exchange(ctx, subject, body, result)
	endSpan(span, err)
	return err
}

// exchange publishes one request and waits for its whole reply.
func (c *Client) exchange(ctx context.Context, subject string, body []byte, result any) error {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	deadline, _ := rctx.Deadline()

	reply, next, release, err := c.replies.open()
	if err != nil {
		return c.transportError(ctx, err)
	}
	defer release()
	msg := nats.NewMsg(subject)
	msg.Reply = reply
	msg.Data = body
	msg.Header.Set(headerTimeout, time.Until(deadline).String())
	injectTrace(ctx, msg.Header)
	if err := c.nc.PublishMsg(msg); err != nil {
		return c.transportError(ctx, err)
	}
	data, err := receiveReply(rctx, next)
	if err != nil {
		return c.transportError(ctx, err)
	}
	env := envelope{Result: result}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("decode reply: %w", err)
	}
	if env.Code != "" {
		return decodeError(&env)
	}
	return nil
}

// transportError says why no reply came: the caller's context ended (its
// error), or the store is unavailable (ErrUnavailable).
func (c *Client) transportError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w: nothing serves %s.*", ErrUnavailable, c.cfg.prefix)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: no reply within %s: %w", ErrUnavailable, c.cfg.timeout, err)
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionDraining),
		errors.Is(err, nats.ErrBadSubscription), errors.Is(err, nats.ErrInvalidConnection):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	default:
		return err
	}
}
