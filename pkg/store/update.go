package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// updateAttempts bounds the re-reads of a contended memory: each lost race
// means another writer made progress, so a few suffice.
const updateAttempts = 8

// Retry runs fn, a read-modify-write that reads afresh on every call, again
// while it fails with ErrConflict, at most a few times. The last conflict
// is returned when every attempt lost its race.
func Retry(ctx context.Context, fn func() error) error {
	var err error
	for range updateAttempts {
		if err = fn(); !errors.Is(err, ErrConflict) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("gave up after %d attempts: %w", updateAttempts, err)
}

// Update reads the tenant's memory id, lets change modify it, and writes it
// back: with UpdatePayload (the text it is indexed by unchanged) or, when
// whole, with Upsert. On a ConditionalWriter the write is conditional on
// the read, and one that lost a race with another writer is read and
// changed again (Retry), so no writer's change is lost; on another store
// it is a plain read and write. change returns false to write nothing. It
// returns the memory as written, or as read when nothing was written.
func Update(ctx context.Context, st Store, tenant, id string, whole bool, change func(m *memory.Memory) (bool, error)) (memory.Memory, error) {
	var out memory.Memory
	err := Retry(ctx, func() error {
		m, rev, err := Read(ctx, st, tenant, id)
		if err != nil {
			return err
		}
		write, err := change(&m)
		out = m
		if err != nil || !write {
			return err
		}
		return Write(ctx, st, tenant, []memory.Memory{m}, []uint64{rev}, whole)
	})
	return out, err
}

// Read reads a memory with its revision from a ConditionalWriter, and with
// revision 0 (a plain write follows) from another store.
func Read(ctx context.Context, st Store, tenant, id string) (memory.Memory, uint64, error) {
	if cw, ok := st.(ConditionalWriter); ok {
		return cw.GetRevision(ctx, tenant, id)
	}
	m, err := st.Get(ctx, tenant, id)
	return m, 0, err
}

// Write writes mems, conditionally on revs on a ConditionalWriter and
// plainly on another store: with Upsert when whole, else UpdatePayload.
func Write(ctx context.Context, st Store, tenant string, mems []memory.Memory, revs []uint64, whole bool) error {
	if cw, ok := st.(ConditionalWriter); ok {
		if whole {
			return cw.UpsertIf(ctx, mems, revs)
		}
		return cw.UpdatePayloadIf(ctx, tenant, mems, revs)
	}
	if whole {
		return st.Upsert(ctx, mems)
	}
	return st.UpdatePayload(ctx, tenant, mems)
}
