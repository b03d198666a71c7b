// Package coalesce merges concurrent embedding calls into one model call
// while the model is busy ("natural batching"): a call that finds the model
// idle runs at once, with no waiting for company, and calls that arrive
// meanwhile queue up and go together in the next model call. An idle
// service answers as fast as the model; a loaded one embeds many queries
// for about the price of one, since a short text costs little more than
// streaming the model's weights once.
package coalesce

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/embed"
)

// batchTimeout bounds one merged model call, which no single caller's
// context governs.
const batchTimeout = time.Minute

// Embedder coalesces concurrent Embed calls to an inner embedder.
type Embedder struct {
	inner embed.Embedder
	max   int // texts per merged call

	mu    sync.Mutex
	busy  bool
	queue []*call
}

var _ embed.Embedder = (*Embedder)(nil)

type call struct {
	ctx   context.Context
	texts []string
	vecs  [][]float32
	err   error
	done  chan struct{}
}

// New coalesces calls to inner, up to max texts per merged call (a call
// with more texts than max runs alone).
func New(inner embed.Embedder, max int) *Embedder {
	return &Embedder{inner: inner, max: max}
}

func (e *Embedder) Dim() int      { return e.inner.Dim() }
func (e *Embedder) Model() string { return e.inner.Model() }

// Queued is how many calls wait for the model.
func (e *Embedder) Queued() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

// Embed returns the vectors of texts, computed alone when the model is idle
// and with the other callers' texts when it is not.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	c := &call{ctx: ctx, texts: texts, done: make(chan struct{})}
	e.mu.Lock()
	if !e.busy {
		e.busy = true
		e.mu.Unlock()
		e.run([]*call{c})
		return c.vecs, c.err
	}
	e.queue = append(e.queue, c)
	e.mu.Unlock()
	select {
	case <-c.done:
		return c.vecs, c.err
	case <-ctx.Done():
		// The merged call, if it has started, finishes for the others; this
		// caller's share is dropped.
		return nil, fmt.Errorf("embed %d texts: %w", len(texts), ctx.Err())
	}
}

// run embeds a batch, then hands the queue that built up meanwhile to
// another goroutine, so that this batch's callers return at once.
func (e *Embedder) run(batch []*call) {
	e.embed(batch)
	e.mu.Lock()
	if len(e.queue) == 0 {
		e.busy = false
		e.mu.Unlock()
		return
	}
	next := e.take()
	e.mu.Unlock()
	go e.run(next)
}

// take removes the next batch from the queue: at least one call, and more
// while their texts fit in max. The caller holds mu.
func (e *Embedder) take() []*call {
	n, texts := 0, 0
	for n < len(e.queue) && (n == 0 || texts+len(e.queue[n].texts) <= e.max) {
		texts += len(e.queue[n].texts)
		n++
	}
	batch := make([]*call, n)
	copy(batch, e.queue)
	e.queue = append(e.queue[:0], e.queue[n:]...)
	return batch
}

// embed runs one model call for the live calls of batch and delivers each
// its vectors.
func (e *Embedder) embed(batch []*call) {
	live := batch[:0:0]
	var texts []string
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = fmt.Errorf("embed %d texts: %w", len(c.texts), err)
			close(c.done)
			continue
		}
		live = append(live, c)
		texts = append(texts, c.texts...)
	}
	if len(live) == 0 {
		return
	}
	ctx := live[0].ctx
	if len(live) > 1 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
		defer cancel()
	}
	vecs, err := e.inner.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("model returned %d vectors for %d texts", len(vecs), len(texts))
	}
	at := 0
	for _, c := range live {
		if err != nil {
			c.err = err
		} else {
			c.vecs = vecs[at : at+len(c.texts) : at+len(c.texts)]
		}
		at += len(c.texts)
		close(c.done)
	}
}
