package erase

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// KVEntries is the place of key-value buckets holding what a subject said
// (the extractor's session buffers and style observations): every key
// holds accepts is purged, so no reader gets its value again. A KV
// bucket's stream denies message deletes (so SecureDeleteMsg is refused)
// and JetStream removes purged and superseded revisions without
// overwriting them: their bytes stay in the bucket's block files until
// JetStream compacts the block or the block's every message expired (the
// session TTL). Rewriting the bucket instead would race the extractor's
// writes and could lose another session's turns, so a purge that matched
// any entry says not_erased, with why.
func KVEntries(js jetstream.JetStream, name string, buckets []string, holds func(t Target, key string, value []byte) bool) Place {
	return PlaceFunc{Place: name, Func: func(ctx context.Context, t Target) (Outcome, error) {
		total := 0
		for _, b := range buckets {
			n, err := eraseKV(ctx, js, b, func(key string, value []byte) bool { return holds(t, key, value) })
			total += n
			if err != nil {
				return Outcome{Erased: total}, fmt.Errorf("erase from bucket %s: %w", b, err)
			}
		}
		if total > 0 {
			return Outcome{Erased: total}, fmt.Errorf("%w: %d entries purged (no reader gets them again), but a key-value bucket denies secure deletes: their bytes stay in the bucket's files until JetStream compacts the block or the session TTL expires it", ErrCannot, total)
		}
		return Outcome{Note: "no entry held the subject"}, nil
	}}
}

// eraseKV purges the keys holds accepts, counting them.
func eraseKV(ctx context.Context, js jetstream.JetStream, bucket string, holds func(key string, value []byte) bool) (int, error) {
	kv, err := js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return 0, fmt.Errorf("list keys: %w", err)
	}
	defer func() { _ = keys.Stop() }()
	n := 0
	for key := range keys.Keys() {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("read %s: %w", key, err)
		}
		if !holds(key, e.Value()) {
			continue
		}
		if err := kv.Purge(ctx, key); err != nil {
			return n, fmt.Errorf("purge %s: %w", key, err)
		}
		n++
	}
	return n, nil
}
