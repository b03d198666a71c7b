package store

import (
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// CheckPayloadBatch validates an UpdatePayload batch before any engine
// looks at what it stores: every memory valid and of the call's tenant.
func CheckPayloadBatch(tenant string, mems []memory.Memory) error {
	for i := range mems {
		m := &mems[i]
		if err := m.Validate(); err != nil {
			return fmt.Errorf("update payload of memory %d (%s): %w", i, m.ID, err)
		}
		if m.Tenant != tenant {
			return fmt.Errorf("update payload of memory %d (%s): it belongs to tenant %s, not %s: %w",
				i, m.ID, m.Tenant, tenant, memory.ErrInvalid)
		}
	}
	return nil
}

// TextChanged is the error an engine returns for a memory of an
// UpdatePayload batch whose indexed text differs from the stored one.
func TextChanged(i int, id string) error {
	return fmt.Errorf("update payload of memory %d (%s): its key, content or tags changed, which needs an upsert: %w",
		i, id, memory.ErrInvalid)
}
