package promptctx

import (
	"math"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// Priorities (004): critical 4, high 3, medium 2, normal 1.
const priorityHigh = 3

// repetitionWeight makes being restated count 2.5 times being recalled (003).
const repetitionWeight = 2.5

// DirectiveKey is the key of a subject's synthesised personality directive.
const DirectiveKey = "personality/directive"

// priority is a memory's 004 priority: its type's, raised to high when it
// is important enough or was promoted to core.
func (a *Assembler) priority(m *memory.Memory) int {
	p := m.Type.Priority()
	if (m.Importance >= a.cfg.BaselineImportance || m.Layer == memory.LayerCore) && p < priorityHigh {
		p = priorityHigh
	}
	return p
}

// typeWeight is 004's type_weight: 1 for critical down to 0.7 for normal.
func typeWeight(p int) float64 { return 0.6 + 0.1*float64(p) }

// lastTouched is when a memory was last written or recalled.
func lastTouched(m *memory.Memory) time.Time {
	t := m.CreatedAt
	if m.ModifiedAt.After(t) {
		t = m.ModifiedAt
	}
	if m.LastAccessed.After(t) {
		t = m.LastAccessed
	}
	return t
}

// decay is 004's exponential decay: the factor halves every half-life
// since the memory was last touched.
func (a *Assembler) decay(m *memory.Memory, now time.Time) float64 {
	age := now.Sub(lastTouched(m))
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(a.cfg.HalfLife))
}

// reinforcement grows slowly with recalls and restatements, so a memory
// used a hundred times does not drown a fresh, relevant one.
func reinforcement(m *memory.Memory) float64 {
	n := float64(max(0, m.AccessCount)) + repetitionWeight*float64(max(0, m.RepetitionCount))
	return 1 + 0.1*math.Log2(1+n)
}

// standing is 004's layer-B score without a query: type weight × decay ×
// reinforcement.
func (a *Assembler) standing(m *memory.Memory, now time.Time) float64 {
	return typeWeight(a.priority(m)) * a.decay(m, now) * reinforcement(m)
}

// knownScore is Nebo's decayScore (uses × 0.7 per 30 days since last
// touched), counting the first use so that never-recalled memories still
// order by age.
func knownScore(m *memory.Memory, now time.Time) float64 {
	days := max(0, now.Sub(lastTouched(m)).Hours()/24)
	uses := 1 + float64(max(0, m.AccessCount)) + repetitionWeight*float64(max(0, m.RepetitionCount))
	return uses * math.Pow(0.7, days/30)
}

// confidence treats an unset confidence as unknown (001).
func confidence(m *memory.Memory) float64 {
	if m.Confidence == 0 {
		return memory.ConfidenceUnknown
	}
	return m.Confidence
}

// isStyle reports a style observation (001: type style, key style/...).
func isStyle(m *memory.Memory) bool {
	return m.Type == memory.TypeStyle || strings.HasPrefix(memory.NormalizeKey(m.Key), "style/")
}

// isProcedure reports the memories of the procedures layer.
func isProcedure(m *memory.Memory) bool {
	return m.Type == memory.TypeWorkflow || m.Type == memory.TypeProcedure
}

// isDirective reports a personality directive.
func isDirective(m *memory.Memory) bool {
	return m.Key == DirectiveKey || m.Key != "" && memory.NormalizeKey(m.Key) == DirectiveKey
}

// injectable reports whether a memory may go into a prompt asked in view
// v (as_of, known_at; zero: now): the one rule recall's block follows too
// (recall.InjectableAt).
func injectable(m *memory.Memory, v memory.TimeView) bool {
	return recall.InjectableAt(m, v)
}

// flatten puts a memory on one line: a prompt line is one memory.
func flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
