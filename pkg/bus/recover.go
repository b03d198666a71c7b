package bus

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Recovery from a full disk (embedded server only).
//
// nats-server's file store keeps the first write error it meets: once a
// stream's (or a consumer's) write failed for lack of space, its later
// writes fail too, even after space returns, until the store is reopened.
// The bus therefore checks the store directory's free space every
// DiskCheckInterval. A full disk is noted when the check sees it, when a
// publish is refused on it, or when the server logs a write that found no
// space. Once space is back (twice the full-disk threshold free, so that a
// restart does not land on a disk that fills again at once), JetStream is
// restarted inside the running server: ShutdownJetStream stops every
// stream and consumer, keeping their files, and a reload of the server's
// own, unchanged options enables JetStream again on the same store
// directory. That is the path nats-server takes when a configuration
// reload finds JetStream disabled at runtime (as it does itself when a
// clustered server runs out of space). The client connection, in-process
// or TCP, stays up throughout; streams, consumers and key-value buckets are
// read back from disk with their positions. The bus then re-declares the
// streams and re-binds its running consumers, and only then reports ready.

const recoverTimeout = 30 * time.Second

// startDiskWatch runs the free-space check until Close.
func (b *Bus) startDiskWatch() {
	ctx, cancel := context.WithCancel(context.Background())
	b.watchStop = cancel
	b.watchDone = make(chan struct{})
	go func() {
		defer close(b.watchDone)
		t := time.NewTicker(b.cfg.DiskCheckInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			b.checkDisk(ctx)
		}
	}()
}

// stopDiskWatch ends the check and waits for a restart under way.
func (b *Bus) stopDiskWatch() {
	if b.watchStop != nil {
		b.watchStop()
		<-b.watchDone
	}
}

// checkDisk notes a full disk, or restarts JetStream when space is back
// after one; a failed restart is tried again at the next check.
func (b *Bus) checkDisk(ctx context.Context) {
	free, known := b.freeSpace()
	if !known {
		return
	}
	if free < b.lowDiskBytes() {
		b.diskHit.Store(true)
		return
	}
	if !b.diskHit.Load() && !b.refusedOnFullDisk() {
		return
	}
	if free < b.spaceBackBytes() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, recoverTimeout)
	defer cancel()
	if err := b.restartJetStream(ctx, free); err != nil {
		b.recoverErr.Store(&err)
		b.log.Error("restart jetstream after a full disk failed; retrying", "error", err, "retry_in", b.cfg.DiskCheckInterval)
	}
}

// spaceBackBytes is the free space at which a full disk counts as over.
func (b *Bus) spaceBackBytes() uint64 { return 2 * b.lowDiskBytes() }

// freeSpace is the free space of the embedded server's store directory.
func (b *Bus) freeSpace() (uint64, bool) {
	free := b.cfg.freeBytes
	if free == nil {
		free = freeBytes
	}
	return free(filepath.Join(b.cfg.DataDir, "nats"))
}

// restartJetStream stops and re-enables JetStream in the embedded server,
// re-declares the streams and re-binds the running consumers.
func (b *Bus) restartJetStream(ctx context.Context, free uint64) error {
	b.recoverMu.Lock()
	defer b.recoverMu.Unlock()
	b.recovering.Store(true)
	done := false
	defer func() {
		if !done {
			b.recovering.Store(false)
		}
	}()
	start := time.Now()
	b.log.Warn("space is back after a full disk: restarting the embedded jetstream", "free_bytes", free)
	if b.srv.JetStreamEnabled() {
		if err := b.srv.ShutdownJetStream(); err != nil {
			return fmt.Errorf("shut jetstream down: %w", err)
		}
	}
	// A reload with unchanged options re-enables JetStream when it is off.
	opts := b.opts.Clone()
	if err := b.srv.ReloadOptions(opts); err != nil {
		return fmt.Errorf("enable jetstream again (reload options): %w", err)
	}
	b.opts = opts
	if !b.srv.JetStreamEnabled() {
		return errors.New("enable jetstream again: it did not start (see the embedded nats log)")
	}
	if err := ensureStreams(ctx, b.js, b.cfg); err != nil {
		return fmt.Errorf("declare streams again: %w", err)
	}
	consumers := b.runningConsumers()
	for _, c := range consumers {
		if err := c.rebind(ctx); err != nil {
			return err
		}
	}
	b.clearDiskState()
	b.recoverErr.Store(nil)
	// Readiness first, then the count: whoever sees the restart counted
	// must also see the bus ready.
	b.recovering.Store(false)
	done = true
	b.recoveries.Add(1)
	b.log.Info("embedded jetstream restarted after a full disk", "took", time.Since(start), "consumers", len(consumers))
	return nil
}

// clearDiskState forgets the full disk once JetStream was restarted.
func (b *Bus) clearDiskState() {
	b.diskHit.Store(false)
	b.diskRefused.Clear()
	b.diskSeen.Clear()
}

// diskNotReady says why the bus is not ready after a full disk, or "".
func (b *Bus) diskNotReady() string {
	if b.recovering.Load() {
		return "the queue's store is being restarted after a full disk"
	}
	if !b.diskHit.Load() && !b.refusedOnFullDisk() {
		return ""
	}
	msg := fmt.Sprintf("the queue's store met a full disk; it is restarted in-process once %d bytes are free (checked every %s)",
		b.spaceBackBytes(), b.cfg.DiskCheckInterval)
	if p := b.recoverErr.Load(); p != nil {
		msg += fmt.Sprintf("; the last restart failed: %v", *p)
	}
	return msg
}

// diskGate refuses a publish at once while the embedded store is known to
// have met a full disk and was not restarted yet: its streams may keep
// their write error, so the publish would only wait for its timeout.
func (b *Bus) diskGate(subject string) error {
	if !b.diskHit.Load() && !b.recovering.Load() {
		return nil
	}
	if why, full := b.diskFull(); full {
		return fmt.Errorf("publish %s: %w (%s)", subject, ErrUnavailable, why)
	}
	return fmt.Errorf("publish %s: %w (disk full: the queue's store is restarted once space is back)", subject, ErrUnavailable)
}

// DiskRecoveries counts the in-process JetStream restarts after a full
// disk since Open.
func (b *Bus) DiskRecoveries() uint64 { return b.recoveries.Load() }

// rebind makes sure the durable consumer exists after JetStream restarted
// and pulls from it from now on.
func (c *Consumer) rebind(ctx context.Context) error {
	cons, err := c.bus.js.CreateOrUpdateConsumer(ctx, c.cfg.Stream, c.jcfg)
	if err != nil {
		return fmt.Errorf("bind consumer %s on %s again: %w", c.cfg.Durable, c.cfg.Stream, err)
	}
	c.mu.Lock()
	c.cons = cons
	c.cancelRebound() // pulls waiting on the old binding end now
	c.rebound, c.cancelRebound = context.WithCancel(context.Background())
	c.mu.Unlock()
	return nil
}
