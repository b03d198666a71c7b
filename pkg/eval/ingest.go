package eval

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
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

// events are the sample's turns as the run's ingest path sends them, and
// how many turns they carry. Every turn's id is the set's prefix and its
// dia id (a rerun is a no-op); its time is its own or its session's date
// plus its position in seconds (to keep the order); the memories made from
// it name that id among their sources, which is how a recalled memory is
// traced back to the turns it was made from.
//   - explicit: each turn a "memory" event, type episode, the dia id in a tag;
//   - turns: each turn a "turn" event (speaker B as the assistant, the
//     speaker's name as the name), then a session_end per session;
//   - compaction: each session one compaction event (in parts of at most
//     memory.MaxEventsBatch messages), the turns its messages with their ids.
func (r *runner) events(c *conversation) (out []memory.Event, turns int) {
	for _, se := range c.sample.Sessions {
		session := fmt.Sprintf("session-%d", se.Number)
		var msgs []memory.Message
		var last time.Time
		for i, t := range se.Turns {
			dia, ok := ParseDiaID(t.DiaID)
			if !ok || c.turns[dia] {
				r.log.Warn("skip turn without a usable dia id", "tenant", c.tenant, "dia_id", t.DiaID)
				continue
			}
			c.turns[dia] = true
			turns++
			id := r.eventPrefix() + dia
			var ts time.Time
			switch {
			case !t.TS.IsZero():
				ts = t.TS
			case !se.Date.IsZero():
				ts = se.Date.Add(time.Duration(i) * time.Second)
				if ts.After(c.asOf) {
					c.asOf = ts
				}
			}
			last = ts
			c.sources[c.tenant+":"+id] = dia
			switch r.cfg.Ingest {
			case IngestExplicit:
				out = append(out, memory.Event{ID: id, Type: memory.EventMemory, Tenant: c.tenant, SessionID: session, TS: ts,
					Memory: &memory.MemoryInput{Content: TurnContent(t, r.cfg.Captions), Type: memory.TypeEpisode,
						Tags: []string{diaTag(dia)}}})
			case IngestCompaction:
				msgs = append(msgs, memory.Message{ID: id, Role: c.role(t), Name: speakerName(t), Content: turnText(t, r.cfg.Captions), TS: ts})
			default: // turns
				out = append(out, memory.Event{ID: id, Type: memory.EventTurn, Tenant: c.tenant, SessionID: session, TS: ts,
					Role: c.role(t), Name: speakerName(t), Content: turnText(t, r.cfg.Captions)})
			}
		}
		switch {
		case (r.cfg.Ingest == IngestTurns || r.cfg.Ingest == "") && len(se.Turns) > 0:
			out = append(out, memory.Event{ID: r.eventPrefix() + "end:" + session, Type: memory.EventSessionEnd, Tenant: c.tenant,
				SessionID: session, TS: last})
		case r.cfg.Ingest == IngestCompaction:
			for part := 0; part*memory.MaxEventsBatch < len(msgs); part++ {
				chunk := msgs[part*memory.MaxEventsBatch : min(len(msgs), (part+1)*memory.MaxEventsBatch)]
				out = append(out, memory.Event{ID: fmt.Sprintf("%scompaction:%s:%d", r.eventPrefix(), session, part),
					Type: memory.EventCompaction, Tenant: c.tenant, SessionID: session, TS: chunk[len(chunk)-1].TS, Messages: chunk})
			}
		}
	}
	return out, turns
}

// role is the chat role a turn is sent with: the second speaker is the
// assistant, anyone else the user.
func (c *conversation) role(t Turn) string {
	if c.sample.SpeakerB != "" && t.Speaker == c.sample.SpeakerB {
		return "assistant"
	}
	return "user"
}

// speakerName is a turn's speaker as an event's name may carry it.
func speakerName(t Turn) string {
	n := strings.TrimSpace(t.Speaker)
	if len(n) > memory.MaxNameChars {
		n = n[:memory.MaxNameChars]
	}
	return n
}

// turnText is what a turn says, without the speaker (the name carries it):
// with its speaker prefixed it is TurnContent.
func turnText(t Turn, captions bool) string {
	c := strings.TrimSpace(t.Text)
	if captions && strings.TrimSpace(t.Caption) != "" {
		c += " [shared an image: " + strings.TrimSpace(t.Caption) + "]"
	}
	return c
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
	events := 0
	for i, c := range r.convs {
		var n int
		all[i], n = r.events(c)
		r.report.Turns += n
		events += len(all[i])
	}
	r.report.Ingest = cmp.Or(r.cfg.Ingest, IngestTurns)
	posted := 0
	r.cfg.progress(StageIngest, 0, events)
	for i, c := range r.convs {
		evs := all[i]
		for start := 0; start < len(evs); start += memory.MaxEventsBatch {
			batch := evs[start:min(len(evs), start+memory.MaxEventsBatch)]
			if err := r.client.postEvents(ctx, batch); err != nil {
				return fmt.Errorf("ingest %s: %w", c.sample.ID, err)
			}
			posted += len(batch)
			r.cfg.progress(StageIngest, posted, events)
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
		for i, s := range m.SourceIDs {
			if d, ok := c.sources[s]; ok {
				c.covered[d] = true
				if i == 0 {
					c.tagged[d] = true // the turn's own memory (its first source)
				}
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
