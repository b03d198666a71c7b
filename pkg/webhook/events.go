package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// MemoryGetter reads a memory as it stands (the store).
type MemoryGetter interface {
	Get(ctx context.Context, tenant, id string) (memory.Memory, error)
}

// MemoryData is the data of a memory.* event.
type MemoryData struct {
	ID     string `json:"id"`
	Tenant string `json:"tenant"`
	// Op is what the pipeline reported: inserted, reinforced, updated,
	// deleted.
	Op          memory.StoredOp `json:"op"`
	Domain      string          `json:"domain,omitempty"`
	SourceEvent string          `json:"source_event,omitempty"`
	// State is the memory's standing right after the change.
	State string `json:"state,omitempty"`
	// Memory is the memory as it stood when the event was delivered
	// (absent for memory.deleted, or when it was deleted since): a later
	// change may already show in it; its own event follows.
	Memory *memory.Memory `json:"memory,omitempty"`
}

// event is what a bus message becomes for endpoints.
type event struct {
	id      string // webhook-id: the same on every attempt and for every endpoint
	tenant  string
	payload Payload
}

// messageID is the webhook-id of a bus message: from its publisher's
// Nats-Msg-Id when it has one (a republish of the same change keeps its
// id), else from its stream sequence.
func messageID(d *bus.Delivery) string {
	src := d.MsgID
	if src == "" {
		src = d.Stream + ":" + strconv.FormatUint(d.StreamSeq, 10)
	}
	sum := sha256.Sum256([]byte(src))
	return "msg_" + hex.EncodeToString(sum[:12])
}

// toEvent maps a message of RECOLLECT_EVENT to a webhook event; ok is
// false for messages no endpoint is told about.
func toEvent(ctx context.Context, d *bus.Delivery, memories MemoryGetter) (ev event, ok bool, err error) {
	ev = event{id: messageID(d), tenant: bus.LastToken(d.Subject)}
	ev.payload.Timestamp = d.Timestamp.UTC()
	switch {
	case strings.HasPrefix(d.Subject, bus.StoredPrefix):
		var s memory.StoredEvent
		if err := json.Unmarshal(d.Data, &s); err != nil {
			return ev, false, bus.Permanent(fmt.Errorf("decode stored event: %w", err))
		}
		data := MemoryData{ID: s.ID, Tenant: s.Tenant, Op: s.Op, Domain: s.Domain, SourceEvent: s.SourceEvent, State: s.State}
		ev.payload.Type = memoryType(s)
		if s.Op != memory.StoredDeleted {
			m, err := memories.Get(ctx, s.Tenant, s.ID)
			switch {
			case errors.Is(err, store.ErrNotFound):
				// Deleted since: its memory.deleted follows in order.
			case err != nil:
				return ev, false, fmt.Errorf("read memory %s for its webhook: %w", s.ID, err)
			default:
				m.Vector, m.ChunkVectors = nil, nil
				data.Memory = &m
			}
		}
		ev.payload.Data = data
	case strings.HasPrefix(d.Subject, bus.ConsolidatedPrefix):
		var c memory.ConsolidatedEvent
		if err := json.Unmarshal(d.Data, &c); err != nil {
			return ev, false, bus.Permanent(fmt.Errorf("decode consolidated event: %w", err))
		}
		ev.payload.Type, ev.payload.Data = TypeEpochCompleted, c
	case strings.HasPrefix(d.Subject, bus.PurgedPrefix):
		var p memory.PurgedEvent
		if err := json.Unmarshal(d.Data, &p); err != nil {
			return ev, false, bus.Permanent(fmt.Errorf("decode purged event: %w", err))
		}
		ev.payload.Type, ev.payload.Data = TypePurgeCompleted, p
	default:
		return ev, false, nil
	}
	return ev, true, nil
}

// memoryType names a stored event from what the pipeline did and the
// standing it left the memory in, both as the event recorded them.
func memoryType(s memory.StoredEvent) string {
	switch {
	case s.Op == memory.StoredDeleted:
		return TypeMemoryDeleted
	case s.State == memory.StateQuarantined:
		return TypeMemoryQuarantined
	case s.State == memory.StateArchived:
		return TypeMemoryArchived
	case s.State == memory.StateSuperseded:
		return TypeMemorySuperseded
	case s.Op == memory.StoredInserted:
		return TypeMemoryStored
	}
	return TypeMemoryUpdated
}
