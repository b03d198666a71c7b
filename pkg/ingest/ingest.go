// Package ingest accepts conversation events over HTTP, validates them and
// publishes them onto the conversation stream. It answers 2xx only once
// JetStream has acknowledged every event of the request.
package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
	"github.com/recollect-dev/recollect/pkg/web"
)

// Config of the ingest module.
type Config struct {
	MaxBatch       int
	PublishTimeout time.Duration
	RetryAfter     time.Duration
	// MaxFutureSkew bounds how far into the future an event's ts may lie;
	// zero means memory.DefaultMaxFutureSkew.
	MaxFutureSkew time.Duration
}

// RegisterFlags adds the ingest flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.MaxBatch, prefix+"ingest-max-batch", memory.MaxEventsBatch, "most events accepted in one request")
	fs.DurationVar(&c.PublishTimeout, prefix+"ingest-publish-timeout", 10*time.Second, "how long ingest waits for JetStream to acknowledge a request's events")
	fs.DurationVar(&c.RetryAfter, prefix+"ingest-retry-after", 2*time.Second, "Retry-After sent with 503 when the queue is unavailable or full")
	fs.DurationVar(&c.MaxFutureSkew, prefix+"max-future-skew", memory.DefaultMaxFutureSkew, "how far into the future an event's or imported record's timestamp may lie (clock skew); later ones are refused with 400")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.MaxBatch < 1 || c.MaxBatch > 10000 {
		return fmt.Errorf("ingest-max-batch must be between 1 and 10000 (got %d)", c.MaxBatch)
	}
	if c.PublishTimeout <= 0 {
		return errors.New("ingest-publish-timeout must be positive")
	}
	if c.MaxFutureSkew < 0 {
		return fmt.Errorf("max-future-skew must not be negative (got %s)", c.MaxFutureSkew)
	}
	return nil
}

// Publisher is the part of the bus ingest needs.
type Publisher interface {
	PublishBatch(ctx context.Context, ms []bus.Msg) error
}

// Ingest is the ingest module.
type Ingest struct {
	cfg     Config
	pub     Publisher
	log     *slog.Logger
	now     func() time.Time
	metrics metrics
}

type metrics struct {
	accepted prometheus.Counter
	rejected *prometheus.CounterVec
}

// New builds the module.
func New(cfg Config, pub Publisher, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Ingest, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := metrics{
		accepted: prometheus.NewCounter(prometheus.CounterOpts{Name: "recollect_ingest_events_accepted_total", Help: "Events acknowledged by JetStream."}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_ingest_requests_rejected_total", Help: "Requests refused, by reason."}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.accepted, m.rejected)
	}
	return &Ingest{cfg: cfg, pub: pub, log: log, now: now, metrics: m}, nil
}

// Response is the body of a successful POST /v1/events.
type Response = api.EventsResponse

// envelope is either form of the body: one event, or {"events": [...]}.
// Decoding it once (strictly) and each batch element once more is two
// passes over the bytes instead of four.
type envelope struct {
	Events []json.RawMessage `json:"events"`
	memory.Event
}

// ServeHTTP handles POST /v1/events: one event or {"events": [...]}.
func (i *Ingest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, web.MaxBodyBytes))
	if err != nil {
		i.metrics.rejected.WithLabelValues("bad_body").Inc()
		web.WriteError(w, http.StatusBadRequest, "bad_request", fmt.Errorf("request body larger than %d bytes or unreadable: %w", web.MaxBodyBytes, err))
		return
	}
	events, err := i.Decode(r.Context(), body)
	if errors.Is(err, auth.ErrForbidden) {
		i.metrics.rejected.WithLabelValues("forbidden").Inc()
		web.WriteError(w, http.StatusForbidden, "forbidden", err)
		return
	}
	if err != nil {
		i.metrics.rejected.WithLabelValues("invalid").Inc()
		web.WriteError(w, http.StatusBadRequest, "invalid_event", err)
		return
	}
	if err := i.Publish(r.Context(), events); err != nil {
		i.metrics.rejected.WithLabelValues("unavailable").Inc()
		i.log.WarnContext(r.Context(), "publish events", "events", len(events), "error", err)
		web.Unavailable(w, i.cfg.RetryAfter, fmt.Errorf("queue unavailable, retry with the same event ids: %w", err))
		return
	}
	ids := make([]string, len(events))
	for k, e := range events {
		ids[k] = e.ID
	}
	i.metrics.accepted.Add(float64(len(events)))
	web.WriteJSON(w, http.StatusAccepted, Response{Accepted: len(events), IDs: ids})
}

// Decode parses and validates a request body. Either every event is valid
// or none is accepted; the error names the first bad field
// ("events[3].content is longer than 8192 characters"). Each event's tenant
// is resolved against ctx's API key (auth.Tenant): one event naming a
// tenant the key may not act for refuses the batch with auth.ErrForbidden.
func (i *Ingest) Decode(ctx context.Context, raw []byte) ([]memory.Event, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, &memory.FieldError{Field: "body", Reason: "must be a JSON object: one event or {\"events\": [...]}"}
	}
	var env envelope
	if err := strictjson.Unmarshal(raw, &env); err != nil {
		// encoding/json names a field of the embedded event "Event.x".
		var fe *memory.FieldError
		if errors.As(err, &fe) {
			fe.Field = strings.TrimPrefix(fe.Field, "Event.")
		}
		return nil, err
	}
	now := i.now()
	if env.Events == nil {
		e := env.Event
		if err := resolveTenant(ctx, &e, ""); err != nil {
			return nil, err
		}
		if err := e.Normalize(now); err != nil {
			return nil, err
		}
		if err := e.CheckTimes(now, i.skew()); err != nil {
			return nil, err
		}
		return []memory.Event{e}, nil
	}
	if env.ID != "" || env.Content != "" || env.SessionID != "" {
		return nil, &memory.FieldError{Field: "events", Reason: "cannot be combined with the fields of a single event"}
	}
	if len(env.Events) == 0 {
		return nil, &memory.FieldError{Field: "events", Reason: "is empty"}
	}
	if len(env.Events) > i.cfg.MaxBatch {
		return nil, &memory.FieldError{Field: "events", Reason: fmt.Sprintf("has %d events, more than the limit of %d", len(env.Events), i.cfg.MaxBatch)}
	}
	out := make([]memory.Event, len(env.Events))
	seen := make(map[string]int, len(env.Events))
	for k, one := range env.Events {
		prefix := fmt.Sprintf("events[%d]", k)
		if err := decodeEvent(ctx, one, &out[k], now, i.skew(), prefix); err != nil {
			return nil, prefixField(prefix, err)
		}
		key := out[k].Tenant + "\x00" + out[k].ID
		if prev, dup := seen[key]; dup {
			return nil, &memory.FieldError{Field: prefix + ".id", Reason: fmt.Sprintf("repeats the id of events[%d]", prev)}
		}
		seen[key] = k
	}
	return out, nil
}

func decodeEvent(ctx context.Context, raw json.RawMessage, e *memory.Event, now time.Time, skew time.Duration, prefix string) error {
	if err := strictjson.Unmarshal(raw, e); err != nil {
		return err
	}
	if err := resolveTenant(ctx, e, prefix); err != nil {
		return err
	}
	if err := e.Normalize(now); err != nil {
		return err
	}
	return e.CheckTimes(now, skew)
}

// skew is the configured future bound of event timestamps, the default
// when the configuration left it zero.
func (i *Ingest) skew() time.Duration {
	if i.cfg.MaxFutureSkew <= 0 {
		return memory.DefaultMaxFutureSkew
	}
	return i.cfg.MaxFutureSkew
}

// resolveTenant sets the tenant the request's key acts for; an event without
// one gets the key's tenant.
func resolveTenant(ctx context.Context, e *memory.Event, prefix string) error {
	t, err := auth.Tenant(ctx, e.Tenant)
	if err != nil {
		if prefix != "" {
			return fmt.Errorf("%s.tenant: %w", prefix, err)
		}
		return err
	}
	e.Tenant = t
	return nil
}

func prefixField(prefix string, err error) error {
	var fe *memory.FieldError
	if errors.As(err, &fe) {
		return &memory.FieldError{Field: prefix + "." + fe.Field, Reason: fe.Reason}
	}
	return err
}

// Publish sends validated events to the conversation stream and returns once
// JetStream acknowledged them all. Message ids derive from tenant and event
// id, so a retried request is stored once.
func (i *Ingest) Publish(ctx context.Context, events []memory.Event) error {
	ctx, cancel := context.WithTimeout(ctx, i.cfg.PublishTimeout)
	defer cancel()
	msgs := make([]bus.Msg, len(events))
	for k := range events {
		m, err := EventMsg(&events[k])
		if err != nil {
			return err
		}
		msgs[k] = m
	}
	return i.pub.PublishBatch(ctx, msgs)
}

// EventMsg encodes an event as its conversation-stream message.
func EventMsg(e *memory.Event) (bus.Msg, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return bus.Msg{}, fmt.Errorf("encode event %s: %w", e.ID, err)
	}
	id := bus.EventMsgID(e.Tenant, e.ID)
	hdr := map[string][]string{bus.HeaderCorrelationID: {id}}
	return bus.Msg{Subject: bus.ConvSubject(e.Tenant), ID: id, Data: data, Header: hdr}, nil
}
