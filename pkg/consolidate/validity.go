package consolidate

import (
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// PhaseValidity closes the valid time of memories superseded before
// valid_until existed.
const PhaseValidity = "validity"

// closeValidity migrates memories superseded without a valid_until: they
// take their successor's valid_from when the tenant still holds it, else
// their invalid_at (as reads already assume, memory.Memory.ValidTo). One
// audit entry counts them; it finds nothing once a tenant is migrated.
func (r *run) closeValidity() {
	n := 0
	r.each(func(m *memory.Memory) {
		if m.InvalidAt == nil || m.ValidUntil != nil || !r.mutable(m) {
			return
		}
		from := *m.InvalidAt
		if next := r.mems[m.SupersededBy]; next != nil {
			from = next.ValidSince()
		}
		r.touch(m)
		m.Supersede(m.SupersededBy, from, *m.InvalidAt)
		n++
	})
	if n > 0 {
		r.record(Op{Phase: PhaseValidity, Op: "adjust", Applied: true, Decider: DecidedByRule,
			Reason: fmt.Sprintf("%d superseded memories got valid_until: their successor's valid_from, or their invalid_at", n)})
	}
}
