package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/usage"
)

const tracerName = "recollect/llm"

// Recorder receives one usage record per HTTP attempt; usage.Sink is one.
type Recorder interface {
	Record(ctx context.Context, r usage.Record)
}

// Client makes chat calls. It is safe for concurrent use.
type Client struct {
	cfg       Config
	level     Level
	jsonMode  JSONMode
	timeout   time.Duration
	providers []*provider
	tenants   *tenantLimiter
	rec       Recorder
	log       *slog.Logger

	http        *http.Client
	tracer      trace.Tracer
	now         func() time.Time
	sleep       func(context.Context, time.Duration) error
	backoffBase time.Duration
	backoffMax  time.Duration
}

// New validates cfg and builds a client; rec (nil: none) receives usage
// records, log (nil: none) retries and fallbacks. A client whose level is
// off is valid: every Chat returns ErrDisabled.
func New(cfg Config, rec Recorder, log *slog.Logger, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("llm config: %w", err)
	}
	if rec == nil {
		rec = discard{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		cfg:         cfg,
		level:       cfg.EffectiveLevel(),
		jsonMode:    cmpOr(cfg.JSONMode, JSONAuto),
		timeout:     cmpOr(cfg.Timeout, DefaultTimeout),
		tenants:     newTenantLimiter(cmpOr(cfg.TenantConcurrency, DefaultTenantConcurrency)),
		rec:         rec,
		log:         log,
		http:        &http.Client{Transport: newTransport()},
		tracer:      otel.Tracer(tracerName),
		now:         time.Now,
		sleep:       sleepCtx,
		backoffBase: DefaultBackoffBase,
		backoffMax:  DefaultBackoffMax,
	}
	if c.level != LevelOff {
		c.providers = cfg.providers()
	}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// Enabled reports whether calls go out (level auto or full).
func (c *Client) Enabled() bool { return c.level != LevelOff }

// Level is the effective level.
func (c *Client) Level() Level { return c.level }

// Model is the model the primary provider uses for tier t.
func (c *Client) Model(t Tier) string { return c.cfg.ModelFor(t) }

// Chat makes one chat call: it waits for a slot of the request's tenant,
// then tries the providers in order as the package doc says.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	if c.level == LevelOff {
		return Response{}, ErrDisabled
	}
	if err := req.validate(); err != nil {
		return Response{}, fmt.Errorf("llm %s: invalid request: %w", req.component(), err)
	}
	start := c.now()
	ctx, span := c.startSpan(ctx, &req)
	defer span.End()

	release, err := c.tenants.acquire(ctx, req.Tenant)
	if err != nil {
		err = fmt.Errorf("llm %s: wait for a slot of tenant %q: %w", req.component(), req.Tenant, err)
		endSpan(span, Response{}, err)
		return Response{}, err
	}
	defer release()

	resp, err := c.call(ctx, &req)
	resp.Duration = c.now().Sub(start)
	endSpan(span, resp, err)
	if err != nil {
		return Response{}, err
	}
	return resp, nil
}

// call tries each provider in turn.
func (c *Client) call(ctx context.Context, req *Request) (Response, error) {
	msgs := req.messages()
	var errs []error
	attempts := 0
	for i, p := range c.providers {
		model := p.model
		if model == "" {
			model = c.cfg.ModelFor(req.Tier)
		}
		resp, n, err := c.tryProvider(ctx, p, model, req, msgs)
		attempts += n
		resp.Attempts = attempts
		if err == nil {
			return resp, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return resp, fmt.Errorf("llm %s: %w", req.component(), ctxErr)
		}
		if classify(err) == callerFault {
			return resp, fmt.Errorf("llm %s: %w", req.component(), err)
		}
		errs = append(errs, err)
		if i+1 < len(c.providers) {
			next := c.providers[i+1]
			c.log.Warn("llm provider unavailable, trying the next one", "tenant", req.Tenant, "component", req.component(),
				"provider", p.name, "model", model, "next", next.name, "trace_id", traceID(ctx), "err", err)
		}
	}
	return Response{Attempts: attempts}, fmt.Errorf("llm %s: %w: %w", req.component(), ErrUnavailable, errors.Join(errs...))
}

// tryProvider makes attempts at p until one succeeds, the error is not
// transient, or the retries are spent. It returns how many it made.
func (c *Client) tryProvider(ctx context.Context, p *provider, model string, req *Request, msgs []Message) (Response, int, error) {
	jsonMode := req.JSON && c.jsonMode != JSONOff && !(c.jsonMode == JSONAuto && p.noJSONMode.Load())
	attempts := 0
	for retries := 0; ; {
		attempts++
		a, err := c.attempt(ctx, p, model, req, msgs, jsonMode)
		if err == nil {
			return Response{
				Content: a.content, FinishReason: a.finish, InputTokens: a.in, OutputTokens: a.out,
				Model: cmpOr(a.model, model), Provider: p.name,
			}, attempts, nil
		}
		if ctx.Err() != nil {
			return Response{}, attempts, err
		}
		if jsonMode && c.jsonMode == JSONAuto && rejectsJSONMode(err) {
			// Not a retry: the request changes, and the provider's refusal
			// is remembered so later calls skip it.
			p.noJSONMode.Store(true)
			jsonMode = false
			c.log.Info("llm provider rejects response_format, sending JSON calls without it", "provider", p.name, "model", model)
			continue
		}
		if classify(err) != transient || retries >= c.cfg.MaxRetries {
			return Response{}, attempts, err
		}
		wait := c.backoff(retries, err)
		retries++
		c.log.Debug("llm attempt failed, retrying", "tenant", req.Tenant, "component", req.component(), "provider", p.name,
			"model", model, "retry", retries, "wait", wait, "trace_id", traceID(ctx), "err", err)
		trace.SpanFromContext(ctx).AddEvent("llm.retry", trace.WithAttributes(
			attribute.String("llm.provider", p.name), attribute.String("gen_ai.request.model", model),
			attribute.Int("llm.retry", retries), attribute.String("llm.wait", wait.String()), attribute.String("error", err.Error())))
		if err := c.sleep(ctx, wait); err != nil {
			return Response{}, attempts, fmt.Errorf("wait to retry %s: %w", p.name, err)
		}
	}
}

// attempt is one HTTP exchange, recorded in usage whatever its outcome.
func (c *Client) attempt(ctx context.Context, p *provider, model string, req *Request, msgs []Message, jsonMode bool) (answer, error) {
	body := chatRequest{Model: model, Messages: msgs, MaxTokens: req.MaxTokens, Temperature: req.Temperature}
	if jsonMode {
		body.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return answer{}, fmt.Errorf("encode chat request: %w", err)
	}
	start := c.now()
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	a, err := c.post(actx, p, model, raw)
	cancel()
	rec := usage.Record{
		Time: start, Tenant: req.Tenant, Component: req.component(), Provider: p.name, Model: model,
		InputTokens: a.in, OutputTokens: a.out, Duration: c.now().Sub(start), Outcome: usage.OutcomeOK, TraceID: traceID(ctx),
	}
	if err != nil {
		rec.Outcome = usage.OutcomeError
		var he *HTTPError
		if !errors.As(err, &he) {
			err = fmt.Errorf("llm %s model %s: %w", p.name, model, err)
		}
	}
	c.rec.Record(ctx, rec)
	return a, err
}

// newTransport keeps more idle connections per host than Go's default of
// two, since every tenant's calls share one provider.
func newTransport() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

func traceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

func cmpOr[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}

type discard struct{}

func (discard) Record(context.Context, usage.Record) {}
