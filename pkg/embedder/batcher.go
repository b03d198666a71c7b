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
// model is several times faster per text in batches. It batches naturally:
// a request that finds the model idle runs at once, and requests that
// arrive while a call runs go together in the next one. A linger above 0
// also waits that long for a batch to fill, trading latency for larger
// batches.
type batcher struct {
	model  embed.Embedder
	max    int // texts per model call (a larger request runs alone)
	linger time.Duration
	reqs   chan *embedReq // queued requests, taken by the next model call
	stop   chan struct{}
	done   sync.WaitGroup
}

// embedReq is one caller's texts, embedded in the same model call.
type embedReq struct {
	ctx   context.Context
	texts []string
	vecs  [][]float32
	err   error
	done  chan struct{}
}

func newBatcher(model embed.Embedder, max int, linger time.Duration) *batcher {
	b := &batcher{model: model, max: max, linger: linger, reqs: make(chan *embedReq, max), stop: make(chan struct{})}
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
	if len(texts) == 0 {
		return nil, nil
	}
	r := &embedReq{ctx: ctx, texts: texts, done: make(chan struct{})}
	select {
	case b.reqs <- r:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.stop:
		return nil, context.Canceled
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.stop:
		return nil, context.Canceled
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.vecs, nil
}

func (b *batcher) loop() {
	defer b.done.Done()
	var held *embedReq // taken from the queue but too large for the last batch
	for {
		first := held
		held = nil
		if first == nil {
			select {
			case first = <-b.reqs:
			case <-b.stop:
				return
			}
		}
		batch, n := []*embedReq{first}, len(first.texts)
		var (
			linger <-chan time.Time
			timer  *time.Timer
		)
		if b.linger > 0 {
			timer = time.NewTimer(b.linger)
			linger = timer.C
		}
	gather:
		for n < b.max {
			var r *embedReq
			if linger == nil {
				select { // only what is already waiting
				case r = <-b.reqs:
				default:
					break gather
				}
			} else {
				select {
				case r = <-b.reqs:
				case <-linger:
					break gather
				}
			}
			if n+len(r.texts) > b.max {
				held = r
				break
			}
			batch, n = append(batch, r), n+len(r.texts)
		}
		if timer != nil {
			timer.Stop()
		}
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
	var texts []string
	for _, r := range live {
		texts = append(texts, r.texts...)
	}
	// The batch outlives any single caller's cancellation; bound it instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), time.Minute)
	defer cancel()
	vecs, err := b.model.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("model returned %d vectors for %d texts", len(vecs), len(texts))
	}
	at := 0
	for _, r := range live {
		if err != nil {
			r.err = err
		} else {
			r.vecs = vecs[at : at+len(r.texts) : at+len(r.texts)]
			at += len(r.texts)
		}
		close(r.done)
	}
}

func (b *batcher) Close() {
	close(b.stop)
	b.done.Wait()
}
