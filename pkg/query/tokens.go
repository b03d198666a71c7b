package query

import (
	"hash/fnv"
	"sync"

	"github.com/recollect-dev/recollect/pkg/promptctx"
)

// TokenCounter counts BPE tokens; promptctx's cl100k_base tokenizer, the
// one context budgets are counted in, is one.
type TokenCounter interface {
	Count(text string) int
}

// maxCachedCounts bounds the token-count cache; past it the cache starts
// over.
const maxCachedCounts = 1 << 20

// tokenCache remembers token counts by content hash: a BPE pass costs tens
// of microseconds per memory, a hash well under one, so repeated stats of a
// large tenant stay cheap and an edited memory is counted afresh.
type tokenCache struct {
	load func() (TokenCounter, error)

	mu     sync.Mutex
	counts map[uint64]int32
}

// newTokenCache loads the cl100k_base tokenizer on first use.
func newTokenCache() *tokenCache {
	return &tokenCache{
		load: sync.OnceValues(func() (TokenCounter, error) {
			t, err := promptctx.NewBPE()
			return t, err
		}),
		counts: map[uint64]int32{},
	}
}

// counter returns a function counting texts' tokens through the cache.
func (c *tokenCache) counter() (func(text string) int, error) {
	tok, err := c.load()
	if err != nil {
		return nil, err
	}
	return func(text string) int {
		h := fnv.New64a()
		_, _ = h.Write([]byte(text))
		key := h.Sum64()
		c.mu.Lock()
		n, ok := c.counts[key]
		c.mu.Unlock()
		if ok {
			return int(n)
		}
		n = int32(tok.Count(text))
		c.mu.Lock()
		if len(c.counts) >= maxCachedCounts {
			clear(c.counts)
		}
		c.counts[key] = n
		c.mu.Unlock()
		return int(n)
	}, nil
}
