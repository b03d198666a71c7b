package remote

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/recollect-dev/recollect/pkg/store"
)

// No-responders status, as nats.go reads it (its constants are unexported).
const (
	statusHeader     = "Status"
	statusNoResponse = "503"
)

// replies receives every reply of one client on one wildcard subscription
// and hands each to the request waiting for it. nats.go's own request inbox
// keeps only a reply's first message, and a subscription per request would
// cost a 64k-slot channel each time.
type replies struct {
	nc *nats.Conn

	mu      sync.Mutex
	prefix  string // <inbox>. ; empty until the first request
	sub     *nats.Subscription
	next    uint64
	waiting map[string]*waiter
	gone    chan struct{} // closed by shut
}

// waiter is one request's mailbox; done is closed when it stops reading.
type waiter struct {
	ch   chan *nats.Msg
	done chan struct{}
}

// open registers a request and returns its reply subject and a function
// reading its next reply message; release must be called when done.
func (r *replies) open() (subject string, next func(context.Context) (*nats.Msg, error), release func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone == nil {
		r.gone = make(chan struct{})
	}
	select {
	case <-r.gone:
		return "", nil, nil, store.ErrClosed
	default:
	}
	if r.sub == nil {
		prefix := r.nc.NewInbox() + "."
		sub, err := r.nc.Subscribe(prefix+"*", r.deliver)
		if err != nil {
			return "", nil, nil, fmt.Errorf("subscribe reply inbox: %w", err)
		}
		// A chunked reply is bounded by its request; never drop a chunk.
		if err := sub.SetPendingLimits(-1, -1); err != nil {
			_ = sub.Unsubscribe()
			return "", nil, nil, fmt.Errorf("set reply inbox limits: %w", err)
		}
		r.prefix, r.sub, r.waiting = prefix, sub, map[string]*waiter{}
	}
	r.next++
	token := strconv.FormatUint(r.next, 36)
	gone := r.gone
	w := &waiter{ch: make(chan *nats.Msg, 1), done: make(chan struct{})}
	r.waiting[token] = w
	next = func(ctx context.Context) (*nats.Msg, error) {
		select {
		case m := <-w.ch:
			if len(m.Data) == 0 && m.Header.Get(statusHeader) == statusNoResponse {
				return nil, nats.ErrNoResponders
			}
			return m, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-gone:
			return nil, store.ErrClosed
		}
	}
	release = func() {
		r.mu.Lock()
		delete(r.waiting, token)
		r.mu.Unlock()
		close(w.done)
	}
	return r.prefix + token, next, release, nil
}

// deliver runs on the subscription's goroutine. It waits for the request to
// take the message, so chunks stay in order and none is dropped, unless the
// request has given up.
func (r *replies) deliver(m *nats.Msg) {
	r.mu.Lock()
	w := r.waiting[m.Subject[len(r.prefix):]]
	r.mu.Unlock()
	if w == nil {
		return // a late reply to a request that gave up
	}
	select {
	case w.ch <- m:
	case <-w.done:
	}
}

// shut drops the subscription; waiting and later requests fail with
// store.ErrClosed.
func (r *replies) shut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone == nil {
		r.gone = make(chan struct{})
	}
	select {
	case <-r.gone:
		return
	default:
		close(r.gone)
	}
	if r.sub != nil {
		_ = r.sub.Unsubscribe()
	}
}
