package recall

import "github.com/recollect-dev/recollect/pkg/memory"

// InjectableAt is Injectable for a question asked in view v (as_of,
// known_at): a memory superseded since, but the version that held in v,
// may go into the prompt; one that did not hold never does.
func InjectableAt(m *memory.Memory, v memory.TimeView) bool {
	if v.IsZero() || !m.Superseded() {
		return Injectable(m) && (v.IsZero() || v.Holds(m))
	}
	if !v.Holds(m) {
		return false
	}
	then := *m
	then.Reopen()
	return Injectable(&then)
}
