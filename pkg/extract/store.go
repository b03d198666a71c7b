package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Buckets of the extractor's state.
const (
	// SessionBucket holds session buffers (keys s.<tenant>.<hash>) and
	// compaction markers (f.<tenant>.<hash>); entries expire after
	// --extractor-session-ttl without a write.
	SessionBucket = "recollect_extract_sessions"
	// StyleBucket holds each subject's style observations (keys
	// p.<tenant>.<hash>); they decay by their own rule, not by age.
	StyleBucket = "recollect_extract_styles"
)

// Key families in the buckets.
const (
	sessionPrefix = "s."
	flushPrefix   = "f."
	stylePrefix   = "p."
)

// maxCAS bounds the read-modify-write retries of one update; each retry
// means another writer won, so this many in a row is contention worth an
// error.
const maxCAS = 32

// stateKey is a bucket key for the parts: KV keys allow few characters,
// so the parts are hashed; the tenant stays readable for operators.
func stateKey(prefix, tenant string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return prefix + tenant + "." + hex.EncodeToString(h.Sum(nil)[:16])
}

func sessionKey(tenant, namespace, sess string) string {
	return stateKey(sessionPrefix, tenant, namespace, sess)
}

// kvState reads and writes JSON values with optimistic concurrency, each
// sealed with its entry's key (keyring).
type kvState[T any] struct {
	kv   jetstream.KeyValue
	keys *keyring
}

// get returns the value and its revision; ok is false when there is none.
// An entry whose key is gone (shredded by an erasure) is none, with its
// revision, so the next write replaces it.
func (s kvState[T]) get(ctx context.Context, key string) (v T, rev uint64, ok bool, err error) {
	e, err := s.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return v, 0, false, nil
	case err != nil:
		return v, 0, false, fmt.Errorf("read %s: %w", key, err)
	}
	v, err = s.decode(ctx, key, e.Value())
	if errors.Is(err, errNoKey) {
		return v, e.Revision(), false, nil
	}
	if err != nil {
		return v, 0, false, err
	}
	return v, e.Revision(), true, nil
}

// decode opens and decodes a value of key.
func (s kvState[T]) decode(ctx context.Context, key string, value []byte) (v T, err error) {
	plain, _, err := s.keys.open(ctx, key, value)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(plain, &v); err != nil {
		return v, fmt.Errorf("decode %s: %w", key, err)
	}
	return v, nil
}

// update applies fn to the current value (the zero value when there is
// none) and writes the result if fn reports a change, retrying when
// another writer got there first. It returns the value and revision
// written, or read when fn changed nothing.
func (s kvState[T]) update(ctx context.Context, key string, fn func(v *T, exists bool) (bool, error)) (T, uint64, error) {
	var zero T
	for range maxCAS {
		v, rev, ok, err := s.get(ctx, key)
		if err != nil {
			return zero, 0, err
		}
		changed, err := fn(&v, ok)
		if err != nil || !changed {
			return v, rev, err
		}
		data, err := json.Marshal(v)
		if err != nil {
			return zero, 0, fmt.Errorf("encode %s: %w", key, err)
		}
		if data, err = s.keys.seal(ctx, key, data); err != nil {
			return zero, 0, fmt.Errorf("seal %s: %w", key, err)
		}
		if ok || rev > 0 {
			rev, err = s.kv.Update(ctx, key, data, rev)
		} else {
			rev, err = s.kv.Create(ctx, key, data)
		}
		switch {
		case err == nil:
			return v, rev, nil
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			continue // another writer won: read again
		default:
			return zero, 0, fmt.Errorf("write %s: %w", key, err)
		}
	}
	return zero, 0, fmt.Errorf("write %s: %d conflicting writers in a row", key, maxCAS)
}

// openBucket creates or updates a bucket of the extractor.
func openBucket(ctx context.Context, js jetstream.JetStream, name, desc string, ttl time.Duration) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: name, Description: desc, TTL: ttl, History: 1, Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", name, err)
	}
	return kv, nil
}
