package usage

import "time"

// run writes queued records every flush interval, or as soon as a batch is
// full, until Close. After a failed write it waits a growing backoff and
// ignores full batches meanwhile, so a down backend is not hammered.
func (b *Buffered) run() {
	defer close(b.done)
	var backoff time.Duration // zero while the backend is healthy
	timer := time.NewTimer(b.o.flushInterval)
	defer timer.Stop()
	for {
		kick := b.kick
		if backoff > 0 {
			kick = nil
		}
		select {
		case <-b.stop:
			return
		case <-timer.C:
		case <-kick:
		}
		b.syncSpool()
		err := b.flush(b.ctx)
		switch {
		case b.ctx.Err() != nil:
			return // Close gave up waiting; it flushes what is left
		case err != nil:
			if backoff == 0 {
				backoff = b.o.minBackoff
				b.o.log.Warn("usage backend unavailable, keeping records and retrying",
					"pending", b.Pending(), "retry_in", backoff, "err", err)
			} else {
				backoff = min(2*backoff, b.o.maxBackoff)
				b.o.log.Debug("usage write retry failed", "pending", b.Pending(), "retry_in", backoff, "err", err)
			}
			timer.Reset(backoff)
		default:
			if backoff > 0 {
				b.o.log.Info("usage backend recovered", "written", b.Written(), "dropped", b.Dropped())
			}
			backoff = 0
			timer.Reset(b.o.flushInterval)
		}
	}
}
