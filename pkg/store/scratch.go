package store

import "sync"

// Scratch lends float32 space to searches so that the vectors of their hits
// need no allocation of their own. A recall reads a few hundred hits per
// question, each with a vector of a few hundred floats; copying each to a
// fresh slice of its own was most of the garbage a recall made, and the
// collector's work for it a tenth of the query module's CPU at 64 clients
// (issue 21).
//
// A store that is given a Scratch (Query.Scratch, TextQuery.Scratch,
// HybridQuery.Scratch) may make its hits' Vector and ChunkVectors views of
// it; a store that copies vectors in from elsewhere (Qdrant, the remote
// client) may ignore it. The views stay valid until Reset: whoever holds the
// Scratch must not keep a hit's vectors past that, nor write them to a
// store. Nothing else of a hit lives in the Scratch. A Scratch is safe for
// concurrent use (a recall's channels search in parallel).
type Scratch struct {
	mu     sync.Mutex
	blocks [][]float32
	cur    int // the block being filled
	used   int // floats of blocks[cur] handed out
}

// scratchBlock is the floats of one block: room for 170 vectors of 384
// dimensions, about a recall's channel.
const scratchBlock = 1 << 16

// scratchKeep is the most floats a Scratch keeps across Reset (1 MiB, a
// recall of 400 short hits takes 0.6): a recall of long memories, each with
// its chunk vectors, or a scoped one oversampling its candidates, does not
// leave every pooled scratch that large.
const scratchKeep = 4 * scratchBlock

// Floats returns n floats of the scratch, not cleared; n < 1 returns nil.
// They are the caller's until Reset, and no later call returns them again
// before that.
func (s *Scratch) Floats(n int) []float32 {
	if n < 1 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.cur < len(s.blocks) {
		b := s.blocks[s.cur]
		if s.used+n <= len(b) {
			out := b[s.used : s.used+n : s.used+n]
			s.used += n
			return out
		}
		s.cur, s.used = s.cur+1, 0
	}
	b := make([]float32, max(n, scratchBlock))
	s.blocks = append(s.blocks, b)
	s.cur, s.used = len(s.blocks)-1, n
	return b[:n:n]
}

// Vector returns a copy of v in the scratch (nil for an empty v).
func (s *Scratch) Vector(v []float32) []float32 {
	out := s.Floats(len(v))
	copy(out, v)
	return out
}

// Reset hands every float back: whatever Floats and Vector returned before
// may be overwritten from now on.
func (s *Scratch) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := 0
	for i, b := range s.blocks {
		if kept+len(b) > scratchKeep {
			clear(s.blocks[i:])
			s.blocks = s.blocks[:i]
			break
		}
		kept += len(b)
	}
	s.cur, s.used = 0, 0
}
