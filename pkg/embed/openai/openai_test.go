package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/usage"
)

type tenantKey struct{}

func TestEmbedRequestAndUsage(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithAPIKey("sk-test-secret"))
	s := &sink{}
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	e, err := New(testConfig(srv.URL()), s, "query",
		WithClock(func() time.Time { return clock }),
		WithTenant(func(ctx context.Context) string { v, _ := ctx.Value(tenantKey{}).(string); return v }))
	if err != nil {
		t.Fatal(err)
	}
	traceID := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ctx := trace.ContextWithSpanContext(context.WithValue(context.Background(), tenantKey{}, "acme"),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled}))

	texts := []string{"alpha beta", "gamma"}
	got, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	for i, text := range texts {
		if !near(got[i], llmtest.Vector(text, llmtest.DefaultEmbeddingDims)) {
			t.Errorf("vector %d is not the server's vector of %q", i, text)
		}
	}
	if e.Dim() != llmtest.DefaultEmbeddingDims || e.Model() != "test-embed" {
		t.Errorf("dim %d model %q", e.Dim(), e.Model())
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Endpoint != llmtest.EndpointEmbeddings || r.Model != "test-embed" || r.EncodingFormat != "float" ||
		strings.Join(r.Input, "|") != "alpha beta|gamma" || r.APIKey != "sk-test-secret" {
		t.Errorf("request: endpoint %q model %q format %q input %q key %q", r.Endpoint, r.Model, r.EncodingFormat, r.Input, r.APIKey)
	}
	if strings.Contains(string(r.Body), "dimensions") {
		t.Errorf("request asks for dimensions without a configured width: %s", r.Body)
	}

	recs := s.Records()
	want := usage.Record{Time: clock, Tenant: "acme", Component: "query", Provider: host(t, srv.URL()), Model: "test-embed",
		InputTokens: 3, Outcome: usage.OutcomeOK, TraceID: traceID.String()}
	if len(recs) != 1 {
		t.Fatalf("%d usage records, want 1", len(recs))
	}
	rec := recs[0]
	if rec.Duration <= 0 {
		t.Errorf("usage duration %v", rec.Duration)
	}
	rec.Duration = 0
	if rec != want {
		t.Errorf("usage record\n got %+v\nwant %+v", rec, want)
	}
}

func TestEmbedOrdersByIndexAndNormalises(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		want       [][]float32
		wantTokens int64
	}{
		{
			name: "floats, reversed, usage with prompt_tokens",
			raw:  `{"object":"list","data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}],"usage":{"prompt_tokens":5,"total_tokens":9}}`,
			want: [][]float32{{0.6, 0.8}, {0, 1}}, wantTokens: 5,
		},
		{
			name: "base64, total_tokens only",
			raw:  fmt.Sprintf(`{"data":[{"index":0,"embedding":%q},{"index":1,"embedding":%q}],"usage":{"total_tokens":7}}`, b64(3, 4), b64(0, -2)),
			want: [][]float32{{0.6, 0.8}, {0, -1}}, wantTokens: 7,
		},
		{
			name: "no usage",
			raw:  `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,0.5]}]}`,
			want: [][]float32{{1, 0}, {0, 1}}, wantTokens: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.PushEmbedding(llmtest.Reply{Raw: tc.raw})
			got, err := f.e.Embed(context.Background(), []string{"first", "second"})
			if err != nil {
				t.Fatalf("embed: %v", err)
			}
			for i := range tc.want {
				if !near(got[i], tc.want[i]) || math.Abs(norm(got[i])-1) > 1e-6 {
					t.Errorf("vector %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
			if recs := f.sink.Records(); len(recs) != 1 || recs[0].InputTokens != tc.wantTokens {
				t.Errorf("usage %+v, want one record with %d tokens", recs, tc.wantTokens)
			}
		})
	}
}

func b64(v ...float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestEmbedBatches(t *testing.T) {
	t.Run("by count", func(t *testing.T) {
		f := newFixture(t, func(c *Config) { c.BatchSize = 4 })
		var texts []string
		for i := range 10 {
			texts = append(texts, fmt.Sprintf("text number %d", i))
		}
		got, err := f.e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int
		for _, r := range f.srv.Requests() {
			sizes = append(sizes, len(r.Input))
		}
		if fmt.Sprint(sizes) != "[4 4 2]" {
			t.Fatalf("request sizes %v, want [4 4 2]", sizes)
		}
		for i, text := range texts {
			if !near(got[i], llmtest.Vector(text, llmtest.DefaultEmbeddingDims)) {
				t.Fatalf("vector %d out of order", i)
			}
		}
		if len(f.sink.Records()) != 3 {
			t.Fatalf("%d usage records, want one per request", len(f.sink.Records()))
		}
	})
	t.Run("by bytes", func(t *testing.T) {
		f := newFixture(t, nil)
		f.e.maxBytes = 10
		texts := []string{"aaaa", "bbbb", "cccccccccccccccc", "dd", "ee"}
		if _, err := f.e.Embed(context.Background(), texts); err != nil {
			t.Fatal(err)
		}
		var batches []string
		for _, r := range f.srv.Requests() {
			batches = append(batches, strings.Join(r.Input, "+"))
		}
		// A text longer than the limit still goes, alone.
		if want := "[aaaa+bbbb cccccccccccccccc dd+ee]"; fmt.Sprint(batches) != want {
			t.Fatalf("batches %v, want %s", batches, want)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		f := newFixture(t, nil)
		got, err := f.e.Embed(context.Background(), nil)
		if err != nil || len(got) != 0 || len(f.srv.Requests()) != 0 {
			t.Fatalf("embed nothing: %v, %v, %d requests", got, err, len(f.srv.Requests()))
		}
	})
}

func TestEmbedErrorsHideSecrets(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.APIKey = "sk-wrong-key" }, llmtest.WithAPIKey("sk-right-key"))
	_, err := f.e.Embed(context.Background(), []string{"x"})
	var serr *StatusError
	if !errors.As(err, &serr) || serr.Code != 401 || len(f.srv.Requests()) != 1 {
		t.Fatalf("err = %v after %d requests, want one 401", err, len(f.srv.Requests()))
	}
	if strings.Contains(err.Error(), "sk-wrong-key") {
		t.Fatalf("error carries the api key: %v", err)
	}

	// Nothing listens on the port; the URL carries a password.
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.Listener.Addr().String()
	srv.Close()
	cfg := testConfig("http://user:hunter2@" + addr + "/v1")
	cfg.MaxRetries = 0
	e, err := New(cfg, nil, "embedder")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v, want a network error without the password", err)
	}
	var te *transientError
	if !errors.As(err, &te) {
		t.Fatalf("network error %v is not transient", err)
	}
}

func TestDimensions(t *testing.T) {
	t.Run("probed once then enforced", func(t *testing.T) {
		f := newFixture(t, nil)
		if f.e.Dim() != 0 {
			t.Fatalf("dim before probe = %d", f.e.Dim())
		}
		dim, err := f.e.Probe(context.Background())
		if err != nil || dim != llmtest.DefaultEmbeddingDims || f.e.Dim() != dim {
			t.Fatalf("probe = %d, %v; Dim %d", dim, err, f.e.Dim())
		}
		f.srv.PushEmbedding(llmtest.Reply{Embeddings: [][]float32{{1, 2, 3}}})
		_, err = f.e.Embed(context.Background(), []string{"x"})
		if !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("err = %v, want ErrDimensionMismatch", err)
		}
		if n := len(f.srv.Requests()); n != 2 {
			t.Fatalf("%d requests, want 2 (no retry of a mismatch)", n)
		}
	})
	t.Run("configured", func(t *testing.T) {
		f := newFixture(t, func(c *Config) { c.Dimensions = 8 })
		if f.e.Dim() != 8 || f.e.Model() != "test-embed@8" {
			t.Fatalf("dim %d model %q", f.e.Dim(), f.e.Model())
		}
		f.srv.PushEmbedding(llmtest.Reply{}) // the server's own 64
		if _, err := f.e.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("err = %v, want ErrDimensionMismatch", err)
		}
		if body := string(f.srv.Requests()[0].Body); !strings.Contains(body, `"dimensions":8`) {
			t.Fatalf("request does not ask for 8 dimensions: %s", body)
		}
		f.srv.PushEmbedding(llmtest.Reply{Embeddings: [][]float32{{1, 0, 0, 0, 0, 0, 0, 1}}})
		got, err := f.e.Embed(context.Background(), []string{"x"})
		if err != nil || len(got[0]) != 8 {
			t.Fatalf("embed = %v, %v", got, err)
		}
		if recs := f.sink.Records(); recs[0].Model != "test-embed" {
			t.Fatalf("usage model %q, want the model's own name", recs[0].Model)
		}
	})
}

func TestForSharesWidth(t *testing.T) {
	f := newFixture(t, nil)
	q := f.e.For("query")
	if _, err := q.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if f.e.Dim() != llmtest.DefaultEmbeddingDims {
		t.Fatalf("width learnt through For not shared: %d", f.e.Dim())
	}
	if recs := f.sink.Records(); len(recs) != 1 || recs[0].Component != "query" {
		t.Fatalf("usage %+v, want one query record", recs)
	}
}

func TestEmbedConcurrent(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.BatchSize = 3 })
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 5 {
				texts := []string{fmt.Sprintf("g%d i%d a", g, i), fmt.Sprintf("g%d i%d b", g, i), "shared words", "more shared words"}
				got, err := f.e.Embed(context.Background(), texts)
				if err != nil {
					errs <- err
					return
				}
				for k, text := range texts {
					if !near(got[k], llmtest.Vector(text, llmtest.DefaultEmbeddingDims)) {
						errs <- fmt.Errorf("vector of %q wrong", text)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(f.sink.Records()); n != 8*5*2 {
		t.Fatalf("%d usage records, want %d", n, 8*5*2)
	}
}
