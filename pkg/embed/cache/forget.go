package cache

import (
	"context"
	"errors"
	"fmt"
)

// Deleter is a backend that can drop entries (both backends can): an
// erasure removes the vectors of purged texts.
type Deleter interface {
	DeleteMulti(ctx context.Context, keys []string) (int, error)
}

// ErrCannotForget is answered by a cache whose backend cannot delete.
var ErrCannotForget = errors.New("the embedding cache backend cannot delete entries")

// Forget drops the cached vectors of texts and counts those it held.
func (e *Embedder) Forget(ctx context.Context, texts []string) (int, error) {
	d, ok := e.backend.(Deleter)
	if !ok {
		return 0, ErrCannotForget
	}
	model := e.inner.Model()
	keys := make([]string, len(texts))
	for i, t := range texts {
		keys[i] = Key(model, t)
	}
	n, err := d.DeleteMulti(ctx, keys)
	if err != nil {
		return n, fmt.Errorf("forget %d cached embeddings: %w", len(keys), err)
	}
	return n, nil
}

// DeleteMulti drops keys and counts those it held.
func (c *LRU) DeleteMulti(_ context.Context, keys []string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range keys {
		if el, ok := c.items[k]; ok {
			c.remove(el)
			n++
		}
	}
	return n, nil
}

// DeleteMulti drops keys and counts those it held.
func (r *Redis) DeleteMulti(ctx context.Context, keys []string) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	ctx, cancel := r.bound(ctx)
	defer cancel()
	// One DEL per key: a cluster refuses a DEL of keys in several slots.
	pipe := r.client.Pipeline()
	cmds := make([]interface{ Val() int64 }, len(keys))
	for i, k := range keys {
		cmds[i] = pipe.Del(ctx, r.prefix+k)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("delete %d cached embeddings: %w", len(keys), err)
	}
	n := 0
	for _, c := range cmds {
		n += int(c.Val())
	}
	return n, nil
}
