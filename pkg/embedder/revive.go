package embedder

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// revive makes a memory said again current again, as of the observation
// at: it leaves the archive, and a superseded memory stated after its
// supersession is valid again (InvalidAt, ValidUntil and SupersededBy cleared,
// ValidFrom at). The consolidator then reconciles it with the version that
// superseded it, by key and recency. A statement older than the
// supersession (replayed or imported history) revives nothing: it was
// already known when the newer version replaced it. It reports whether m
// changed.
func revive(m *memory.Memory, at time.Time) bool {
	changed := false
	if m.Archived {
		m.Archived = false
		changed = true
	}
	if m.InvalidAt != nil && !at.Before(*m.InvalidAt) {
		m.Reopen()
		changed = true
	}
	if changed && m.InvalidAt == nil {
		m.ValidFrom = at
	}
	return changed
}

// observedAt is when a fact was observed: its own creation time, or now
// when it has none.
func (e *Embedder) observedAt(seen memory.Memory) time.Time {
	if seen.CreatedAt.IsZero() {
		return e.now().UTC()
	}
	return seen.CreatedAt
}
