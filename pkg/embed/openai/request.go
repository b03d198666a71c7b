package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// Response size bounds: a large batch of wide float vectors in JSON is a
// few MB; an error body only matters for its first lines.
const (
	maxResponseBytes = 64 << 20
	maxErrorBytes    = 4 << 10
)

// attempt makes one request within Config.Timeout and records it.
func (e *Embedder) attempt(ctx context.Context, texts []string) ([][]float32, error) {
	begin := e.now()
	start := time.Now()
	actx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	vecs, tokens, err := e.post(actx, texts)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		err = &transientError{err: fmt.Errorf("no answer within %s: %w", e.cfg.Timeout, err)}
	}
	e.record(ctx, begin, tokens, time.Since(start), err)
	return vecs, err
}

func (e *Embedder) record(ctx context.Context, begin time.Time, tokens int64, took time.Duration, err error) {
	if e.sink == nil {
		return
	}
	outcome := usage.OutcomeOK
	if err != nil {
		outcome = usage.OutcomeError
	}
	var traceID string
	if id := trace.SpanContextFromContext(ctx).TraceID(); id.IsValid() {
		traceID = id.String()
	}
	e.sink.Record(ctx, usage.Record{
		Time: begin, Tenant: e.tenant(ctx), Component: e.component, Provider: e.provider, Model: e.cfg.Model,
		InputTokens: tokens, Duration: took, Outcome: outcome, TraceID: traceID,
	})
}

// post sends one request and checks the answer. Network failures, 429, 5xx
// and unreadable bodies come back as transientError.
func (e *Embedder) post(ctx context.Context, texts []string) ([][]float32, int64, error) {
	body, err := json.Marshal(request{Model: e.cfg.Model, Input: texts, EncodingFormat: "float", Dimensions: e.cfg.Dimensions})
	if err != nil {
		return nil, 0, fmt.Errorf("encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		// url.Error names the endpoint, which may carry credentials.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, 0, &transientError{err: fmt.Errorf("post: %w", err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		serr := &StatusError{Code: resp.StatusCode, Message: errorMessage(resp.Body)}
		if serr.Temporary() {
			return nil, 0, &transientError{err: serr, wait: retryAfter(resp.Header, e.now())}
		}
		return nil, 0, serr
	}
	var r response
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(&r); err != nil {
		return nil, 0, &transientError{err: fmt.Errorf("%w: decode: %v", ErrMalformed, err)}
	}
	vecs, err := e.vectors(&r, len(texts))
	return vecs, r.tokens(), err
}

// vectors puts the answer's vectors in input order (by their index) and
// normalises them, checking there is exactly one per input, all of the
// model's width.
func (e *Embedder) vectors(r *response, n int) ([][]float32, error) {
	if len(r.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrMalformed, len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: index %d missing, repeated or out of range", ErrMalformed, d.Index)
		}
		v, err := decodeEmbedding(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("%w: vector %d: %v", ErrMalformed, d.Index, err)
		}
		if err := e.checkDim(len(v)); err != nil {
			return nil, err
		}
		if err := normalize(v); err != nil {
			return nil, fmt.Errorf("%w: vector %d: %v", ErrMalformed, d.Index, err)
		}
		out[d.Index] = v
	}
	return out, nil
}

// checkDim takes the first width seen as the model's, unless configured,
// and rejects any other.
func (e *Embedder) checkDim(n int) error {
	if n == 0 {
		return fmt.Errorf("%w: empty vector", ErrMalformed)
	}
	want := e.dim.Load()
	if want == 0 && e.dim.CompareAndSwap(0, int64(n)) {
		return nil
	}
	if want = e.dim.Load(); int64(n) != want {
		return fmt.Errorf("%w: model %s answered %d dimensions, want %d", ErrDimensionMismatch, e.cfg.Model, n, want)
	}
	return nil
}

// errorMessage is the API's error message (OpenAI's
// {"error":{"message":...}}, Ollama's {"error":"..."}), or the start of the
// body.
func errorMessage(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, maxErrorBytes))
	var openai errorBody
	if json.Unmarshal(b, &openai) == nil && openai.Error.Message != "" {
		return openai.Error.Message
	}
	var ollama struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &ollama) == nil && ollama.Error != "" {
		return ollama.Error
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "..."
	}
	return s
}
