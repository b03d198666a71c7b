package cache

import (
	"container/list"
	"context"
	"sync"
)

// DefaultMaxBytes bounds the in-process cache: about 40,000 vectors of 384
// dimensions.
const DefaultMaxBytes = 64 << 20

// entryOverhead approximates what an entry costs beyond its key and vector
// (list element, map slot, slice and string headers), so the byte bound is
// close to the real memory use.
const entryOverhead = 128

// LRU is an in-process Backend that evicts the least recently used vectors
// beyond a number of entries or of bytes. It copies vectors in and out, so
// callers may modify what they pass or receive.
type LRU struct {
	mu         sync.Mutex
	ll         *list.List // front is most recently used
	items      map[string]*list.Element
	bytes      int64
	maxBytes   int64
	maxEntries int
}

type lruEntry struct {
	key string
	vec []float32
}

// NewLRU bounds the cache by maxEntries and maxBytes; zero leaves that
// bound off, and both zero mean DefaultMaxBytes.
func NewLRU(maxEntries int, maxBytes int64) *LRU {
	if maxEntries <= 0 && maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &LRU{ll: list.New(), items: map[string]*list.Element{}, maxBytes: maxBytes, maxEntries: maxEntries}
}

func entryBytes(key string, vec []float32) int64 {
	return int64(len(key)) + 4*int64(len(vec)) + entryOverhead
}

// GetMulti returns copies of the cached vectors of keys.
func (c *LRU) GetMulti(_ context.Context, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if el, ok := c.items[k]; ok {
			c.ll.MoveToFront(el)
			out[k] = append([]float32(nil), el.Value.(*lruEntry).vec...)
		}
	}
	return out, nil
}

// SetMulti stores copies of entries, evicting as needed. An entry larger
// than the whole byte bound is not stored.
func (c *LRU) SetMulti(_ context.Context, entries map[string][]float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range entries {
		size := entryBytes(k, v)
		if c.maxBytes > 0 && size > c.maxBytes {
			continue
		}
		if el, ok := c.items[k]; ok {
			c.remove(el)
		}
		c.items[k] = c.ll.PushFront(&lruEntry{key: k, vec: append([]float32(nil), v...)})
		c.bytes += size
		for (c.maxEntries > 0 && c.ll.Len() > c.maxEntries) || (c.maxBytes > 0 && c.bytes > c.maxBytes) {
			c.remove(c.ll.Back())
		}
	}
	return nil
}

func (c *LRU) remove(el *list.Element) {
	e := el.Value.(*lruEntry)
	c.ll.Remove(el)
	delete(c.items, e.key)
	c.bytes -= entryBytes(e.key, e.vec)
}

// Len is the number of cached vectors.
func (c *LRU) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Bytes is the approximate memory the cached vectors take.
func (c *LRU) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
