// Package cache wraps an embedding model with a cache of the vectors it
// computed, keyed by model and text (Nebo: SHA-256 of text and model), so
// re-embedding the same text (redelivered facts, repeated queries, consolidation
// passes) costs a lookup instead of a model call. Backends: an in-process
// LRU for one process, Redis shared by every process of a deployment.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/recollect-dev/recollect/pkg/embed"
)

// Backend stores vectors by key. GetMulti leaves absent keys out of its
// result; vectors it returns are the caller's to keep. Errors are reported,
// not fatal: the cache then computes the vectors.
type Backend interface {
	GetMulti(ctx context.Context, keys []string) (map[string][]float32, error)
	SetMulti(ctx context.Context, entries map[string][]float32) error
}

// Key is the cache key of text embedded by model: hex SHA-256 of
// model + "\x00" + text, so two models never share a vector.
func Key(model, text string) string {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

var _ embed.Embedder = (*Embedder)(nil)

// DefaultPause is how long the cache leaves a failed backend alone before
// trying it again, so a down Redis costs one timeout per pause instead of
// one per batch.
const DefaultPause = 5 * time.Second

// Embedder is an embed.Embedder that serves vectors from a Backend and
// computes only the missing ones with the inner model. A failing backend
// degrades it to the inner model, it never fails an embed.
type Embedder struct {
	inner   embed.Embedder
	backend Backend
	log     *slog.Logger
	now     func() time.Time
	pause   time.Duration

	hits, misses, backendErrors atomic.Int64
	degraded                    atomic.Bool  // the last backend call failed
	skipUntil                   atomic.Int64 // unix ns before which the backend is not used
}

// Option configures an Embedder.
type Option func(*Embedder)

// WithLogger logs backend failures and recoveries to log.
func WithLogger(log *slog.Logger) Option { return func(e *Embedder) { e.log = log } }

// WithPause sets how long a failed backend is bypassed (default
// DefaultPause); zero tries it on every call.
func WithPause(d time.Duration) Option { return func(e *Embedder) { e.pause = d } }

// WithClock sets the clock that times the pause.
func WithClock(now func() time.Time) Option { return func(e *Embedder) { e.now = now } }

// New wraps inner with backend.
func New(inner embed.Embedder, backend Backend, opts ...Option) *Embedder {
	e := &Embedder{inner: inner, backend: backend, log: slog.New(slog.DiscardHandler), now: time.Now, pause: DefaultPause}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Dim is the inner model's width.
func (e *Embedder) Dim() int { return e.inner.Dim() }

// Model is the inner model's name.
func (e *Embedder) Model() string { return e.inner.Model() }

// Unwrap returns the inner model.
func (e *Embedder) Unwrap() embed.Embedder { return e.inner }

// Hits counts texts served from the backend.
func (e *Embedder) Hits() int64 { return e.hits.Load() }

// Misses counts texts the inner model had to embed.
func (e *Embedder) Misses() int64 { return e.misses.Load() }

// BackendErrors counts failed backend calls (reads and writes); calls
// skipped while a failed backend is paused are not counted.
func (e *Embedder) BackendErrors() int64 { return e.backendErrors.Load() }

// Embed returns one vector per text, in order: cached ones from the backend,
// the rest from the inner model in one call (each distinct text once), which
// are then written back.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	model := e.inner.Model()
	keys := make([]string, len(texts))
	first := make(map[string]int, len(texts)) // key -> index of its first text
	uniq := make([]string, 0, len(texts))
	for i, t := range texts {
		keys[i] = Key(model, t)
		if _, ok := first[keys[i]]; !ok {
			first[keys[i]] = i
			uniq = append(uniq, keys[i])
		}
	}
	var cached map[string][]float32
	useBackend := e.now().UnixNano() >= e.skipUntil.Load()
	if useBackend {
		var err error
		cached, err = e.backend.GetMulti(ctx, uniq)
		useBackend = e.observe(err, "read")
	}
	out := make([][]float32, len(texts))
	var missing []string // distinct keys to compute, in first-seen order
	for i, k := range keys {
		if v, ok := cached[k]; ok && e.fits(v) {
			out[i] = v
			e.hits.Add(1)
			continue
		}
		e.misses.Add(1)
		if first[k] == i {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	in := make([]string, len(missing))
	for j, k := range missing {
		in[j] = texts[first[k]]
	}
	vecs, err := e.inner.Embed(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(in) {
		return nil, fmt.Errorf("embed %d uncached texts with %s: got %d vectors", len(in), model, len(vecs))
	}
	computed := make(map[string][]float32, len(missing))
	for j, k := range missing {
		computed[k] = vecs[j]
	}
	for i, k := range keys {
		if out[i] == nil {
			out[i] = computed[k]
		}
	}
	if useBackend {
		e.observe(e.backend.SetMulti(ctx, computed), "write")
	}
	return out, nil
}

// fits rejects a cached vector of the wrong width (written by an older
// configuration, or damaged): it is recomputed instead.
func (e *Embedder) fits(v []float32) bool {
	d := e.inner.Dim()
	return len(v) > 0 && (d == 0 || len(v) == d)
}

// observe reports whether a backend call succeeded. A failure is counted
// and pauses the backend; only changes of state are logged, so a down
// Redis does not log once per batch.
func (e *Embedder) observe(err error, op string) bool {
	if err == nil {
		if e.degraded.CompareAndSwap(true, false) {
			e.log.Info("embedding cache recovered")
		}
		return true
	}
	e.backendErrors.Add(1)
	e.skipUntil.Store(e.now().Add(e.pause).UnixNano())
	if e.degraded.CompareAndSwap(false, true) {
		e.log.Warn("embedding cache unavailable, computing vectors", "op", op, "pause", e.pause, "err", err)
	}
	return false
}
