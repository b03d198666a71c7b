package topiary

import (
	"context"
	"time"
)

// timer is the part of *time.Timer the debounce uses.
type timer interface {
	Reset(d time.Duration) bool
}

// pending is a tenant's next rebuild and the handlers waiting for it.
type pending struct {
	first  time.Time
	events int // schedule calls it covers
	timer  timer
	done   chan struct{}
	err    error
}

// schedule returns the tenant's pending rebuild, creating it or pushing it
// back: it runs once no event came for Debounce, and at the latest MaxDelay
// after its first event. now runs it at once (start-up, stop).
func (t *Topiary) schedule(tenant string, now bool) *pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.now()
	wait := t.cfg.Debounce
	if now || t.stopped {
		wait = 0
	}
	p, ok := t.pending[tenant]
	if !ok {
		p = &pending{first: at, events: 1, done: make(chan struct{})}
		t.pending[tenant] = p
		t.fires.Add(1)
		p.timer = t.afterFunc(wait, func() { t.fire(tenant, p) })
		return p
	}
	p.events++
	if !t.stopped {
		// Debounce: wait for quiet, but never longer than MaxDelay in all.
		p.timer.Reset(max(0, min(wait, t.cfg.MaxDelay-at.Sub(p.first))))
	}
	return p
}

// fire runs a pending rebuild. A timer re-armed while it was firing calls
// fire again for a rebuild already taken off the map: that call does
// nothing.
func (t *Topiary) fire(tenant string, p *pending) {
	t.mu.Lock()
	if t.pending[tenant] != p {
		t.mu.Unlock()
		return
	}
	delete(t.pending, tenant)
	t.mu.Unlock()
	defer t.fires.Done()
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.LeaseTTL)
	defer cancel()
	p.err = t.Rebuild(ctx, tenant)
	close(p.done)
}
