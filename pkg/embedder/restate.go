package embedder

import "github.com/recollect-dev/recollect/pkg/memory"

// Restatement reinforcement (issue 19): a memory said again gains
// importance, not only a count, so a preference stated on purpose and
// restated reaches core by the gate an inferred one passes.
const (
	// restateStep is the importance one restatement adds.
	restateStep = 0.05
	// restateCeiling bounds what restatements alone can raise importance
	// to; a memory stored above it keeps its own.
	restateCeiling = 0.9
)

// restate reinforces m, said again as seen: its importance rises to
// seen's when that is higher (an explicit restatement of an inferred
// fact), then by restateStep up to restateCeiling; its confidence to
// seen's when higher. The repetition count is the caller's.
func restate(m *memory.Memory, seen memory.Memory) {
	if seen.Importance > m.Importance {
		m.Importance = min(seen.Importance, 1)
	}
	if m.Importance < restateCeiling {
		m.Importance = min(m.Importance+restateStep, restateCeiling)
	}
	m.Confidence = max(m.Confidence, seen.Confidence)
}
