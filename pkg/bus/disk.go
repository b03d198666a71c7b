package bus

import (
	"errors"
	"fmt"
)

// lowDiskBytes is the free space below which the embedded server's store
// counts as full: a write needs room for a message and its index.
func (b *Bus) lowDiskBytes() uint64 {
	return max(uint64(1<<20), 2*uint64(b.cfg.withDefaults().MaxMsgSize))
}

// diskFull reports, for the embedded server, whether the file system of
// its store is (nearly) full, and says so in words (naming the directory
// only for operators: readiness, not client errors).
func (b *Bus) diskFull() (string, bool) {
	if b.srv == nil || b.cfg.DataDir == "" {
		return "", false
	}
	free, ok := b.freeSpace()
	if !ok || free >= b.lowDiskBytes() {
		return "", false
	}
	return fmt.Sprintf("disk full: %d bytes free for the queue's store", free), true
}

// explain adds the cause to an unavailable error of the embedded server
// when it is a full disk, so that clients and operators read "disk full"
// rather than a timeout. It also records the outcome for subjects'
// families: one refused on a full disk keeps the bus not ready until
// JetStream was restarted (recover.go) or a publish of that family
// succeeds again; a failure of such a family after space returned counts
// as refused too, so that it leads to a restart.
func (b *Bus) explain(err error, subjects ...string) error {
	if b.srv == nil {
		return err
	}
	if err == nil {
		if b.diskEver.Load() { // nothing to clear until a full disk was seen
			for _, s := range subjects {
				b.diskRefused.Delete(subjectFamily(s))
			}
		}
		return nil
	}
	if !errors.Is(err, ErrUnavailable) {
		return err
	}
	if why, full := b.diskFull(); full {
		b.diskHit.Store(true)
		b.diskEver.Store(true)
		for _, s := range subjects {
			b.diskSeen.Store(subjectFamily(s), true)
			b.diskRefused.Store(subjectFamily(s), true)
		}
		return fmt.Errorf("%w (%s)", err, why)
	}
	// Space is back but a family that was refused on a full disk fails
	// still: its store kept the write error (JetStream is restarted soon,
	// or is being restarted now).
	if b.recovering.Load() {
		return err
	}
	for _, s := range subjects {
		if _, seen := b.diskSeen.Load(subjectFamily(s)); seen {
			b.diskRefused.Store(subjectFamily(s), true)
		}
	}
	return err
}

// refusedOnFullDisk reports whether a subject family's last publish was
// refused on a full disk.
func (b *Bus) refusedOnFullDisk() bool {
	refused := false
	b.diskRefused.Range(func(any, any) bool { refused = true; return false })
	return refused
}
