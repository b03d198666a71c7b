package embedder

import (
	"context"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/embed"
)

// batcher gathers texts from concurrent handlers into one model call: the
// model is several times faster per text in batches.
type batcher struct {
	model   embed.Embedder
	max     int
	linger  time.Duration
	reqs    chan *embedReq
	stop    chan struct{}
	done    sync.WaitGroup
	onBatch func(ctx context.Context, texts []string, took time.Duration, err error)
}

type embedReq struct {
	ctx  context.Context
	text string
	vec  []float32
	err  error
	done chan struct{}
}

func newBatcher(model embed.Embedder, max int, linger time.Duration, onBatch func(context.Context, []string, time.Duration, error)) *batcher {
	b := &batcher{model: model, max: max, linger: linger, reqs: make(chan *embedReq), stop: make(chan struct{}), onBatch: onBatch}
	b.done.Add(1)
	go b.loop()
	return b
}

// Embed returns the vector of text, batched with concurrent callers.
func (b *batcher) Embed(ctx context.Context, text string) ([]float32, error) {
	r := &embedReq{ctx: ctx, text: text, done: make(chan struct{})}
	select {
	case b.reqs <- r:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.stop:
		return nil, context.Canceled
	}
	select {
	case <-r.done:
		return r.vec, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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

func (b *batcher) run(batch []*embedReq) {
	texts := make([]string, 0, len(batch))
	live := batch[:0]
	for _, r := range batch {
		if r.ctx.Err() != nil {
			r.err = r.ctx.Err()
			close(r.done)
			continue
		}
		texts = append(texts, r.text)
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	// The batch outlives any single caller's cancellation; bound it instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), time.Minute)
	defer cancel()
	begin := time.Now()
	vecs, err := b.model.Embed(ctx, texts)
	if b.onBatch != nil {
		b.onBatch(live[0].ctx, texts, time.Since(begin), err)
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
