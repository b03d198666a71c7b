package eval

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// tenantName keeps the characters a tenant may have.
func tenantName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			b[i] = '-'
		}
	}
	return string(b[:min(len(b), memory.MaxNameChars)])
}

// events are the sample's turns as "memory" events: type episode, the dia
// id in a tag, the session date as the time (plus the turn's position, in
// seconds, to keep the order), and an id that makes a rerun a no-op.
func (r *runner) events(c *conversation) []memory.Event {
	var out []memory.Event
	for _, se := range c.sample.Sessions {
		for i, t := range se.Turns {
			dia, ok := ParseDiaID(t.DiaID)
			if !ok || c.turns[dia] {
				r.log.Warn("skip turn without a usable dia id", "tenant", c.tenant, "dia_id", t.DiaID)
				continue
			}
			c.turns[dia] = true
			e := memory.Event{ID: r.eventPrefix() + dia, Type: memory.EventMemory, Tenant: c.tenant,
				SessionID: fmt.Sprintf("session-%d", se.Number),
				Memory: &memory.MemoryInput{Content: TurnContent(t, r.cfg.Captions), Type: memory.TypeEpisode,
					Tags: []string{diaTag(dia)}}}
			switch {
			case !t.TS.IsZero():
				e.TS = t.TS
			case !se.Date.IsZero():
				e.TS = se.Date.Add(time.Duration(i) * time.Second)
				if e.TS.After(c.asOf) {
					c.asOf = e.TS
				}
			}
			c.sources[c.tenant+":"+e.ID] = dia
			out = append(out, e)
		}
	}
	return out
}

// eventPrefix starts every event id: the set's name and a colon.
func (r *runner) eventPrefix() string {
	if r.set == "" {
		return "locomo:"
	}
	return r.set + ":"
}

func (r *runner) ingest(ctx context.Context) error {
	all := make([][]memory.Event, len(r.convs))
	for i, c := range r.convs {
		all[i] = r.events(c)
		r.report.Turns += len(all[i])
	}
	posted := 0
	r.cfg.progress(StageIngest, 0, r.report.Turns)
	for i, c := range r.convs {
		evs := all[i]
		for start := 0; start < len(evs); start += memory.MaxEventsBatch {
			batch := evs[start:min(len(evs), start+memory.MaxEventsBatch)]
			if err := r.client.postEvents(ctx, batch); err != nil {
				return fmt.Errorf("ingest %s: %w", c.sample.ID, err)
			}
			posted += len(batch)
			r.cfg.progress(StageIngest, posted, r.report.Turns)
		}
	}
	return nil
}

// waitStored polls every tenant's memories until each turn shows up in a
// memory (its own, or the one it was merged into). It gives up on the rest
// after Settle without progress anywhere (dead-lettered turns) and fails
// after WaitTimeout.
func (r *runner) waitStored(ctx context.Context) error {
	deadline := time.Now().Add(r.cfg.WaitTimeout)
	lastProgress, last := time.Now(), -1
	r.cfg.progress(StageStored, 0, r.report.Turns)
	for {
		covered := 0
		for _, c := range r.convs {
			if c.covered == nil || len(c.covered) < len(c.turns) {
				if err := r.scan(ctx, c); err != nil {
					return err
				}
			}
			covered += len(c.covered)
		}
		if covered != last {
			last, lastProgress = covered, time.Now()
			r.cfg.progress(StageStored, covered, r.report.Turns)
		}
		done := covered == r.report.Turns
		if !done && time.Since(lastProgress) > r.cfg.Settle {
			r.log.Warn("turns not stored; scoring without them", "missing", r.report.Turns-covered, "first", r.missing(10))
			done = true
		}
		if done {
			for _, c := range r.convs {
				r.report.Memories += c.memories
				r.report.TurnsMissing += len(c.turns) - len(c.covered)
				r.report.TurnsMerged += len(c.covered) - len(c.tagged)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for stored turns: %d of %d stored after %s", covered, r.report.Turns, r.cfg.WaitTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// missing names up to n turns not seen in any memory, as tenant/dia id.
func (r *runner) missing(n int) []string {
	var out []string
	for _, c := range r.convs {
		for _, t := range c.sample.Turns() {
			if d, ok := ParseDiaID(t.DiaID); ok && c.turns[d] && !c.covered[d] && len(out) < n {
				out = append(out, c.tenant+"/"+d)
			}
		}
	}
	return out
}

func (r *runner) scan(ctx context.Context, c *conversation) error {
	mems, err := r.client.listMemories(ctx, c.tenant)
	if err != nil {
		return err
	}
	c.covered, c.tagged, c.memories = map[string]bool{}, map[string]bool{}, len(mems)
	for _, m := range mems {
		for _, t := range m.Tags {
			if d := diaFromTag(t); d != "" && c.turns[d] {
				c.tagged[d], c.covered[d] = true, true
			}
		}
		for _, s := range m.SourceIDs {
			if d, ok := c.sources[s]; ok {
				c.covered[d] = true
			}
		}
	}
	return nil
}

// diaIDs are the turns a recalled memory stands for: its own (tag) first,
// then those merged into it.
func (c *conversation) diaIDs(m memory.Memory) []string {
	var out []string
	for _, t := range m.Tags {
		if d := diaFromTag(t); d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, s := range m.SourceIDs {
		if d, ok := c.sources[s]; ok && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
