package extract

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// sweepEvery is how often the extractor looks for keys whose entry is
// gone (a session ended or its buffer expired).
const sweepEvery = time.Hour

// sweepKeys shreds the keys of entries no bucket holds any more, once they
// are older than orphanAge: they seal nothing a reader could get, and the
// key stream would otherwise grow with every session. It returns how many
// went.
func (x *Extractor) sweepKeys(ctx context.Context, now time.Time) (int, error) {
	keys := x.sessions.keys
	entries, err := keys.entries(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, entry := range entries {
		kv := x.sessions.kv
		if strings.HasPrefix(entry, stylePrefix) {
			kv = x.styles.kv
		}
		_, err := kv.Get(ctx, entry)
		if err == nil {
			continue
		}
		if !errors.Is(err, jetstream.ErrKeyNotFound) && !errors.Is(err, jetstream.ErrKeyDeleted) {
			return n, err
		}
		made, ok, err := keys.made(ctx, entry)
		if err != nil {
			return n, err
		}
		if !ok || now.Sub(made) < orphanAge {
			continue // a writer may be about to write the entry
		}
		if err := keys.shred(ctx, entry); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// sweep runs sweepKeys every sweepEvery until ctx ends.
func (x *Extractor) sweep(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := x.sweepKeys(ctx, x.now())
			if err != nil {
				x.log.Warn("sweep entry keys", "error", err)
			}
			if n > 0 {
				x.log.Info("entry keys of gone entries shredded", "keys", n)
			}
		}
	}
}
