package embedder

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// batcher gathers texts from concurrent handlers into one model call: the
// model is several times faster per text in batches.
type batcher struct {
	model  embed.Embedder
	max    int
	linger time.Duration
	reqs   chan *embedReq
	stop   chan struct{}
	done   sync.WaitGroup
}

type embedReq struct {
	ctx  context.Context
	text string
	vec  []float32
	err  error
	done chan struct{}
}

func newBatcher(model embed.Embedder, max int, linger time.Duration) *batcher {
	b := &batcher{model: model, max: max, linger: linger, reqs: make(chan *embedReq), stop: make(chan struct{})}
	b.done.Add(1)
	go b.loop()
	return b
}

// Embed returns the vector of text, batched with concurrent callers.
func (b *batcher) Embed(ctx context.Context, text string) ([]float32, error) {
	vecs, err := b.EmbedAll(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// EmbedAll returns the vectors of texts, in order. The texts join the
// shared batches like concurrent callers' do, so many chunks of one memory
// or many memories of a reindex fill model calls.
func (b *batcher) EmbedAll(ctx context.Context, texts []string) ([][]float32, error) {
	reqs := make([]*embedReq, 0, len(texts))
	for _, t := range texts {
		r := &embedReq{ctx: ctx, text: t, done: make(chan struct{})}
		select {
		case b.reqs <- r:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-b.stop:
			return nil, context.Canceled
		}
		reqs = append(reqs, r)
	}
	out := make([][]float32, len(reqs))
	for i, r := range reqs {
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil {
			return nil, r.err
		}
		out[i] = r.vec
	}
	return out, nil
}

func (b *batcher) loop() {
	defer b.done.Done()
	for {
		var first *embedReq
		select {
		case first = <-b.reqs:
		case <-b.stop:
			return
		}
		batch := []*embedReq{first}
		timer := time.NewTimer(b.linger)
	gather:
		for len(batch) < b.max {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
			case <-timer.C:
				break gather
			}
		}
		timer.Stop()
		b.run(batch)
	}
}

// run embeds a gathered batch, one model call per tenant so that model
// usage is attributed to the tenant it was spent for.
func (b *batcher) run(batch []*embedReq) {
	groups := map[string][]*embedReq{}
	var order []string
	for _, r := range batch {
		if r.ctx.Err() != nil {
			r.err = r.ctx.Err()
			close(r.done)
			continue
		}
		t := usage.TenantFrom(r.ctx)
		if _, ok := groups[t]; !ok {
			order = append(order, t)
		}
		groups[t] = append(groups[t], r)
	}
	for _, t := range order {
		b.embedGroup(groups[t])
	}
}

func (b *batcher) embedGroup(live []*embedReq) {
	texts := make([]string, len(live))
	for k, r := range live {
		texts[k] = r.text
	}
	// The batch outlives any single caller's cancellation; bound it instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), time.Minute)
	defer cancel()
	vecs, err := b.model.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("model returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for k, r := range live {
		if err != nil {
			r.err = err
		} else {
			r.vec = vecs[k]
		}
		close(r.done)
	}
}

func (b *batcher) Close() {
	close(b.stop)
	b.done.Wait()
}
