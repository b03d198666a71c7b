// Package openai is an embed.Embedder for any OpenAI-compatible
// /v1/embeddings endpoint (OpenAI, Ollama, Text Embeddings Inference, vLLM):
// batched requests, retries of transient failures with backoff, one usage
// record per request, and unit-length vectors in input order.
package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// maxRequestBytes bounds the text in one request, well under OpenAI's
// 300,000 tokens a request, so a batch of long texts is split rather than
// refused.
const maxRequestBytes = 1 << 20

// probeText is embedded once to learn the model's width.
const probeText = "dimension probe"

var _ embed.Embedder = (*Embedder)(nil)

// Embedder calls an OpenAI-compatible embeddings endpoint. It is safe for
// concurrent use.
type Embedder struct {
	cfg       Config
	url       string
	provider  string // the endpoint's host, as recorded in usage
	client    *http.Client
	sink      usage.Sink
	component string
	log       *slog.Logger
	now       func() time.Time
	tenant    func(context.Context) string
	backoff   backoff
	sleep     func(ctx context.Context, d time.Duration) error
	maxBytes  int
	dim       *atomic.Int64 // 0 until configured or first seen; shared by For
}

// Option configures an Embedder.
type Option func(*Embedder)

// WithHTTPClient sets the HTTP client (e.g. one whose transport traces
// requests). Its own Timeout should be zero or above Config.Timeout, which
// already bounds each attempt.
func WithHTTPClient(c *http.Client) Option { return func(e *Embedder) { e.client = c } }

// WithLogger logs retries to log.
func WithLogger(log *slog.Logger) Option { return func(e *Embedder) { e.log = log } }

// WithClock sets the clock of usage records and of Retry-After dates.
func WithClock(now func() time.Time) Option { return func(e *Embedder) { e.now = now } }

// WithTenant tells which tenant a call is made for, recorded with its usage.
func WithTenant(tenant func(context.Context) string) Option {
	return func(e *Embedder) { e.tenant = tenant }
}

// WithBackoff sets the first retry's wait and the longest wait between
// retries (defaults 500 ms and 30 s); each retry waits four times longer
// than the one before, with jitter.
func WithBackoff(first, max time.Duration) Option {
	return func(e *Embedder) { e.backoff = backoff{first: first, max: max} }
}

// New checks cfg and returns an Embedder that records each request to sink
// (nil records nothing) under component ("embedder", "query", ...). It does
// no I/O; Probe learns the width.
func New(cfg Config, sink usage.Sink, component string, opts ...Option) (*Embedder, error) {
	if !cfg.Enabled() {
		return nil, fmt.Errorf("openai embedder: embed-url is empty")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, err := endpoint(cfg.URL)
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 16 // concurrent batches reuse connections
	e := &Embedder{
		cfg: cfg, url: u.String(), provider: u.Host, sink: sink, component: component,
		client:   &http.Client{Transport: transport},
		log:      slog.New(slog.DiscardHandler),
		now:      time.Now,
		tenant:   func(context.Context) string { return "" },
		backoff:  defaultBackoff,
		sleep:    sleep,
		maxBytes: maxRequestBytes,
		dim:      new(atomic.Int64),
	}
	e.dim.Store(int64(cfg.Dimensions))
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// For returns an Embedder sharing e's client and width that records usage
// under another component.
func (e *Embedder) For(component string) *Embedder {
	c := *e
	c.component = component
	return &c
}

// Dim is the vector width: the configured one, or the one the model
// answered with first; 0 before Probe or the first Embed when neither.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Model is the model name, with "@<dimensions>" when a width is requested:
// vectors of one model at two widths are not comparable, and the name is
// what records which vectors a memory has (and keys the embedding cache).
func (e *Embedder) Model() string {
	if e.cfg.Dimensions > 0 {
		return e.cfg.Model + "@" + strconv.Itoa(e.cfg.Dimensions)
	}
	return e.cfg.Model
}

// Provider is the endpoint's host, as recorded in usage.
func (e *Embedder) Provider() string { return e.provider }

// Probe embeds a short text once, so the width is known (and checked
// against the configured one) before anything is stored.
func (e *Embedder) Probe(ctx context.Context) (int, error) {
	if _, err := e.Embed(ctx, []string{probeText}); err != nil {
		return 0, fmt.Errorf("probe embedding model %s: %w", e.cfg.Model, err)
	}
	return e.Dim(), nil
}

// Embed returns one unit vector per text, in order. Texts are sent in
// batches of at most BatchSize texts and maxRequestBytes bytes, one after
// another; a failed batch fails the call.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); {
		end, size := start, 0
		for end < len(texts) && end-start < e.cfg.BatchSize && (end == start || size+len(texts[end]) <= e.maxBytes) {
			size += len(texts[end])
			end++
		}
		vecs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embed %d texts with %s at %s: %w", len(texts), e.cfg.Model, e.provider, err)
		}
		out = append(out, vecs...)
		start = end
	}
	return out, nil
}
