package embedder

import (
	"context"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// directiveKey is the key of a subject's personality directive
// (extract.DirectiveKey): the extractor synthesises a new version as the
// subject's style observations change, under the same key-derived id.
const directiveKey = "personality/directive"

// replacesContent reports whether an incoming fact is a new version of a
// stored memory rather than another observation of it: a directive whose
// text changed.
func replacesContent(stored, incoming memory.Memory) bool {
	return incoming.Key == directiveKey && stored.Content != incoming.Content
}

// boostStyle raises a reinforced style observation's confidence as Nebo
// does, asymptotically towards 1: c += (1 − c) × 0.2. Its content, the
// first wording, is kept.
func boostStyle(m *memory.Memory) {
	if m.Type == memory.TypeStyle && m.Key != directiveKey {
		m.Confidence += (1 - m.Confidence) * 0.2
	}
}

// replace stores the new version of a memory under its id: new content and
// vector, the stored memory's history (creation, counts, sources) kept.
// The caller holds the id's lock.
func (e *Embedder) replace(ctx context.Context, stored memory.Memory, rev uint64, m memory.Memory, source string) error {
	if stored.HasSource(source) {
		return e.announce(ctx, stored, memory.StoredUpdated, source)
	}
	vec, err := e.embedMemory(ctx, m)
	if err != nil {
		return fmt.Errorf("embed new version of %s: %w", m.ID, err)
	}
	vec.Apply(&m)
	m.EmbeddingModel = e.model.Model()
	m.CreatedAt = stored.CreatedAt
	m.AccessCount, m.LastAccessed, m.SuccessCount = stored.AccessCount, stored.LastAccessed, stored.SuccessCount
	m.RepetitionCount = stored.RepetitionCount + 1
	m.SourceIDs = stored.SourceIDs
	m.AddSource(source)
	m, err = e.putIf(ctx, m, rev)
	if err != nil {
		return fmt.Errorf("store new version of %s: %w", m.ID, err)
	}
	e.outcomes.WithLabelValues("replaced").Inc()
	return e.announce(ctx, m, memory.StoredUpdated, source)
}
