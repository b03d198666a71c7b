package extract

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// TranscriptTag marks transcript memories (see memory.TranscriptTag).
const TranscriptTag = memory.TranscriptTag

// transcriptImportance is low: a transcript memory is what was said, found
// by search, never a fact to keep in a prompt's facts.
const transcriptImportance = 0.2

// said is one conversation message on its way to its transcript memory.
type said struct {
	id      string // the message id: a turn's event id, or Message.ID ("" when the agent gave none)
	role    string
	name    string
	content string
	ts      time.Time
	pos     int // position in the event's messages
}

// speaker is how the message's author is written: the name the agent
// gave, else the role.
func (m *said) speaker() string {
	if n := strings.TrimSpace(m.name); n != "" {
		return n
	}
	return strings.ToLower(strings.TrimSpace(m.role))
}

// tags are the transcript memory's tags: TranscriptTag, and the speaker's
// role when it is the user's or the assistant's (a named speaker's content
// carries the name only).
func (m *said) tags() []string {
	switch r := strings.ToLower(strings.TrimSpace(m.role)); r {
	case "user", "assistant":
		return []string{TranscriptTag, memory.RoleTag(r)}
	}
	return []string{TranscriptTag}
}

// line is the message as its transcript memory says it: "speaker: text".
func (m *said) line(text string) string {
	return m.speaker() + ": " + text
}

// turnSaid is a turn event as a message.
func turnSaid(e *memory.Event) said {
	return said{id: e.ID, role: e.Role, name: e.Name, content: e.Content, ts: e.TS.UTC()}
}

// messagesSaid are a compaction's or session end's messages; a message
// without a time takes the event's.
func messagesSaid(e *memory.Event) []said {
	out := make([]said, 0, len(e.Messages))
	for i, m := range e.Messages {
		ts := m.TS
		if ts.IsZero() {
			ts = e.TS
		}
		out = append(out, said{id: m.ID, role: m.Role, name: m.Name, content: m.Content, ts: ts.UTC(), pos: i})
	}
	return out
}

// identity is what makes a message the same message whatever path brings
// it (a streamed turn, later a compaction or a session end): its id when
// the agent gave one, else its time, author and words, else (no time
// either) its position in the event.
func (m *said) identity(content string, eventTS time.Time) string {
	if m.id != "" {
		return "id\x00" + m.id
	}
	h := memory.ContentHash(content)
	k := "at\x00" + m.ts.Format(time.RFC3339Nano) + "\x00" + m.role + "\x00" + string(h[:])
	if m.ts.Equal(eventTS) {
		// The time is the event's, not the message's own: only the
		// position tells two equal messages of the event apart.
		k += "\x00" + strconv.Itoa(m.pos)
	}
	return k
}

// episodes keeps every message of msgs as its own transcript memory
// (001 §11 at turn granularity): an episodic memory "speaker: text" with
// the message before it in msgs as evidence (the context a short reply
// needs; the embedder links the first, and a streamed turn, to the message
// before it in the session), provenance to the message (its id and the
// carrying event in the source ids, the session, the message's time as
// valid time) and an id from the message's identity, so the same message
// arriving by several paths is stored once (reinforced by the later
// path). Tool and system messages are not
// conversation and are left out; a message holding a secret is stored
// with it redacted, one that looks like an instruction to the model is
// stored quarantined (never quoted into a prompt) — nothing said is
// dropped silently.
func (x *Extractor) episodes(o *origin, msgs []said) []memory.FactMessage {
	if !x.cfg.Transcripts {
		return nil
	}
	var out []memory.FactMessage
	var before string
	for i := range msgs {
		m := &msgs[i]
		if !extractable(m.role) {
			continue
		}
		text := strings.TrimSpace(memory.CleanText(m.content))
		if text == "" {
			continue
		}
		st := x.long.CheckStated(filter.Candidate{Content: text})
		if st.Verdict == filter.VerdictRefuse {
			x.m.rejected.WithLabelValues(string(st.Reason), producerTranscript).Inc()
			x.log.Warn("message not kept as a transcript memory", "tenant", o.tenant, "session", o.session,
				"message", m.id, "reason", st.Reason, "detail", st.Detail)
			continue
		}
		text = st.Content
		content := cutRunes(m.line(text), memory.MaxContentChars)
		mo := *o
		mo.ts = m.ts
		mo.ids = o.ids
		if m.id != "" {
			if id := bus.EventMsgID(o.tenant, m.id); id != o.event {
				mo.ids = []string{id, o.event}
			}
		}
		fm, ok := x.build(&mo, candidate{
			key: "transcript/" + memory.NormalizeKey(o.session), content: content, evidence: before,
			tags: m.tags(), domain: domains.Default,
			typ: memory.TypeEpisode, kind: memory.KindEpisodic, importance: transcriptImportance,
			confidence: memory.ConfidenceUnknown, rule: producerTranscript, producer: producerTranscript,
			id: memory.DeterministicID(o.tenant, o.namespace, "transcript", o.session, m.identity(text, o.ts)),
		})
		before = memory.TranscriptContext(content)
		if !ok {
			continue
		}
		if st.Quarantine != "" {
			fm.Memory.Quarantine = cutQuarantine(st.Quarantine)
			x.m.quarantined.WithLabelValues(filter.QuarantineLabel(st.Quarantine)).Inc()
		}
		for _, k := range st.Redacted {
			x.m.redacted.WithLabelValues(k).Inc()
		}
		out = append(out, fm)
		x.m.transcripts.Inc()
		if st.Quarantine == "" {
			out = append(out, x.aliases(&mo, text, fm.Memory.ID)...)
		}
	}
	return out
}

// cutRunes cuts s to at most n characters, on a character boundary.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}
