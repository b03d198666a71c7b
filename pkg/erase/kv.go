package erase

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Sealer opens key-value entries sealed with a key per entry and shreds
// those keys (crypto-shredding).
type Sealer interface {
	// Open returns the plain value and whether it was sealed; plain is nil
	// (err nil) when the entry's key is gone already.
	Open(ctx context.Context, key string, value []byte) (plain []byte, sealed bool, err error)
	// Shred securely deletes the entry's key.
	Shred(ctx context.Context, key string) error
}

// KVEntries is the place of key-value buckets holding what a subject said
// (the extractor's session buffers and style observations): every key
// holds accepts is purged, so no reader gets its value again, and its key
// is shredded. A KV bucket's stream denies message deletes (so
// SecureDeleteMsg is refused) and JetStream removes purged and superseded
// revisions without overwriting them: their bytes stay in the bucket's
// block files until JetStream compacts the block. Entries are therefore
// sealed, each with its own key kept in a stream that allows secure
// deletes: shredding the key leaves those bytes unreadable. An entry
// written in the clear (before sealing) cannot be erased that way, so a
// purge that matched one says not_erased, with why.
func KVEntries(js jetstream.JetStream, name string, buckets []string, sealer Sealer, holds func(t Target, key string, value []byte) bool) Place {
	return PlaceFunc{Place: name, Func: func(ctx context.Context, t Target) (Outcome, error) {
		var total, clear int
		for _, b := range buckets {
			n, c, err := eraseKV(ctx, js, b, sealer, func(key string, value []byte) bool { return holds(t, key, value) })
			total += n
			clear += c
			if err != nil {
				return Outcome{Erased: total}, fmt.Errorf("erase from bucket %s: %w", b, err)
			}
		}
		if clear > 0 {
			return Outcome{Erased: total}, fmt.Errorf("%w: %d entries purged (no reader gets them again), %d of them written in the clear before entries were sealed: a key-value bucket denies secure deletes, so their bytes stay in the bucket's files until JetStream compacts the block or the session TTL expires it", ErrCannot, total, clear)
		}
		if total > 0 {
			return Outcome{Erased: total, Note: fmt.Sprintf("%d entries purged and their keys securely deleted: every revision left in the buckets' files is unreadable", total)}, nil
		}
		return Outcome{Note: "no entry held the subject"}, nil
	}}
}

// eraseKV purges the keys holds accepts and shreds their keys, counting
// them and those that were written in the clear.
func eraseKV(ctx context.Context, js jetstream.JetStream, bucket string, sealer Sealer, holds func(key string, value []byte) bool) (n, clear int, err error) {
	kv, err := js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("open: %w", err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("list keys: %w", err)
	}
	defer func() { _ = keys.Stop() }()
	for key := range keys.Keys() {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return n, clear, fmt.Errorf("read %s: %w", key, err)
		}
		plain, sealed, err := sealer.Open(ctx, key, e.Value())
		if err != nil {
			return n, clear, fmt.Errorf("open %s: %w", key, err)
		}
		if plain == nil || !holds(key, plain) {
			continue // shredded already, or not the subject's
		}
		if err := kv.Purge(ctx, key); err != nil {
			return n, clear, fmt.Errorf("purge %s: %w", key, err)
		}
		if sealed {
			if err := sealer.Shred(ctx, key); err != nil {
				return n, clear, fmt.Errorf("shred the key of %s: %w", key, err)
			}
		} else {
			clear++
		}
		n++
	}
	return n, clear, nil
}
