package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// standings are the stored events of an epoch's changes of standing: a
// memory it made (inserted), one whose standing changed (updated, with
// the new standing: superseded, archived, quarantined, or live again) and
// one it deleted. Changes that keep the standing (decay, promotion, tags)
// are in the epoch's counts, not announced one by one. The source is the
// epoch, so a redelivered announcement is stored once by the stream.
func (r *run) standings() []memory.StoredEvent {
	source := "epoch:" + r.id
	var out []memory.StoredEvent
	for _, m := range r.created {
		out = append(out, memory.StoredEvent{Tenant: r.tenant, ID: m.ID, Op: memory.StoredInserted, Domain: m.Domain,
			SourceEvent: source, State: memory.StoredState(&m)})
	}
	made := map[string]bool{}
	for _, m := range r.created {
		made[m.ID] = true
	}
	ids := make([]string, 0, len(r.before))
	for id := range r.before {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		b, a := r.before[id], r.mems[id]
		if made[id] || a == nil || memory.StoredState(&b) == memory.StoredState(a) {
			continue
		}
		out = append(out, memory.StoredEvent{Tenant: r.tenant, ID: id, Op: memory.StoredUpdated, Domain: a.Domain,
			SourceEvent: source, State: memory.StoredState(a)})
	}
	for _, id := range r.deleted {
		out = append(out, memory.StoredEvent{Tenant: r.tenant, ID: id, Op: memory.StoredDeleted, SourceEvent: source})
	}
	return out
}

// announce publishes the epoch's changes of standing (see standings) on
// the tenant's stored subject, after the epoch is written: webhooks and
// other readers of the event stream learn of each supersession, archive
// and delete an epoch made.
func (c *Consolidator) announce(ctx context.Context, r *run) error {
	for _, ev := range r.standings() {
		data, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode stored event of %s: %w", ev.ID, err)
		}
		msg := bus.Msg{Subject: bus.StoredSubject(r.tenant), ID: "stored:" + ev.ID + ":" + ev.SourceEvent + ":" + string(ev.Op) + ev.State, Data: data}
		if err := c.bus.Publish(ctx, msg); err != nil {
			return fmt.Errorf("announce the change of %s in the epoch of %s: %w", ev.ID, r.tenant, err)
		}
	}
	return nil
}
