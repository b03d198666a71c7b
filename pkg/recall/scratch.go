package recall

import (
	"sync"

	"github.com/recollect-dev/recollect/pkg/store"
)

// scratchPool lends each recall a store.Scratch for its hits' vectors. A
// recall reads a few hundred hits and needs their vectors only while it
// ranks them (the fair cosine of a lexical hit, turns in context, newer
// wins); a vector copied to its own slice per hit was most of a recall's
// garbage, and collecting it a tenth of the query module's CPU at 64
// clients (docs/BENCHMARKS.md, issue 21). Recall takes one when it starts
// and gives it back when it returns, after respond has taken every vector
// out of the results: nothing of a hit's vectors outlives the call.
var scratchPool = sync.Pool{New: func() any { return new(store.Scratch) }}

// releaseScratch resets sc and returns it to the pool.
func releaseScratch(sc *store.Scratch) {
	sc.Reset()
	scratchPool.Put(sc)
}
