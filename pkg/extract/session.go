package extract

import (
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Session buffer bounds.
const (
	seenCap     = 64  // event ids remembered per session, to ignore redeliveries
	maxBuffered = 200 // turns kept per session; beyond it the oldest go (counted)
)

// turn is one buffered message of a session.
type turn struct {
	Seq     uint64    `json:"seq"` // arrival order in this buffer
	ID      string    `json:"id"`  // the event's id
	Role    string    `json:"role"`
	Content string    `json:"content"` // cut to the model's per-message limit
	TS      time.Time `json:"ts"`
}

// session is the durable state of a session's per-turn extraction: its
// recent turns, how far extraction got, and when to try again. It lives
// in a JetStream KV bucket, so turns acknowledged on the stream survive a
// crash until they are extracted.
type session struct {
	Tenant    string `json:"tenant"`
	Namespace string `json:"namespace"`
	Session   string `json:"session"`
	Subject   string `json:"subject,omitempty"`
	Channel   string `json:"channel,omitempty"`

	Turns     []turn `json:"turns"` // in conversation order (timestamp, then arrival)
	LastSeq   uint64 `json:"last_seq"`
	Extracted uint64 `json:"extracted"` // every turn with Seq <= Extracted has been extracted

	LastTurnAt time.Time `json:"last_turn_at"`    // recorder's clock, for the debounce
	Owner      string    `json:"owner,omitempty"` // the instance that recorded the last turn
	Seen       []string  `json:"seen,omitempty"`  // recent event ids, newest last

	Attempts  int       `json:"attempts,omitempty"` // extractions of the pending turns that found the model unavailable
	NotBefore time.Time `json:"not_before,omitzero"`
}

// add records the turn of e (content already cut) and reports whether it
// was new, and how many unextracted turns an overfull buffer dropped.
func (s *session) add(e *memory.Event, content string, now time.Time, owner string) (added bool, dropped int) {
	if slices.Contains(s.Seen, e.ID) {
		return false, 0
	}
	if s.Tenant == "" {
		s.Tenant, s.Namespace, s.Session = e.Tenant, e.Namespace, e.SessionID
	}
	if e.Subject != "" && (s.Subject == "" || e.Role == "user") {
		s.Subject = e.Subject
	}
	if e.Channel != "" {
		s.Channel = e.Channel
	}
	s.LastSeq++
	t := turn{Seq: s.LastSeq, ID: e.ID, Role: e.Role, Content: content, TS: e.TS.UTC()}
	i := len(s.Turns)
	for i > 0 && s.Turns[i-1].TS.After(t.TS) {
		i--
	}
	s.Turns = slices.Insert(s.Turns, i, t)
	s.Seen = append(s.Seen, e.ID)
	if len(s.Seen) > seenCap {
		s.Seen = slices.Clone(s.Seen[len(s.Seen)-seenCap:])
	}
	s.LastTurnAt = now.UTC()
	s.Owner = owner
	for len(s.Turns) > maxBuffered {
		if s.Turns[0].Seq > s.Extracted {
			dropped++
		}
		s.Turns = s.Turns[1:]
	}
	return true, dropped
}

// pending counts the turns not extracted yet.
func (s *session) pending() int {
	n := 0
	for _, t := range s.Turns {
		if t.Seq > s.Extracted {
			n++
		}
	}
	return n
}

// window is the next extraction's input: every turn not extracted yet,
// preceded by earlier turns so that it holds at least n messages; upTo is
// the seq that extraction covers; ids are the turns' event ids.
func (s *session) window(n int) (msgs []memory.Message, upTo uint64, ids []string) {
	start := max(0, len(s.Turns)-n)
	for i, t := range s.Turns {
		if t.Seq > s.Extracted {
			start = min(start, i)
			break
		}
	}
	for _, t := range s.Turns[start:] {
		msgs = append(msgs, memory.Message{ID: t.ID, Role: t.Role, Content: t.Content, TS: t.TS})
		ids = append(ids, bus.EventMsgID(s.Tenant, t.ID))
	}
	return msgs, s.LastSeq, ids
}

// lastEvent is the event id of the turn recorded last: the idempotency id
// of an extraction up to it.
func (s *session) lastEvent() string {
	for _, t := range s.Turns {
		if t.Seq == s.LastSeq {
			return bus.EventMsgID(s.Tenant, t.ID)
		}
	}
	return ""
}

// done records an extraction up to seq and trims the buffer to the last
// keep turns plus any that arrived since.
func (s *session) done(upTo uint64, keep int) {
	s.Extracted = max(s.Extracted, upTo)
	s.Attempts, s.NotBefore = 0, time.Time{}
	if len(s.Turns) <= keep {
		return
	}
	cut := len(s.Turns) - keep
	out := s.Turns[:0:0]
	for i, t := range s.Turns {
		if i >= cut || t.Seq > s.Extracted {
			out = append(out, t)
		}
	}
	s.Turns = out
}

// due says whether the session has turns to extract and when: debounce
// after its last turn, at once when too many are waiting, later on
// replicas that did not record that turn (they only take over), and not
// before a retry's backoff.
func (s *session) due(debounce, failover time.Duration, maxPending int, owner string) (time.Time, bool) {
	n := s.pending()
	if n == 0 {
		return time.Time{}, false
	}
	at := s.LastTurnAt.Add(debounce)
	if n >= maxPending {
		at = s.LastTurnAt
	}
	if s.Owner != owner {
		at = at.Add(failover)
	}
	if s.NotBefore.After(at) {
		at = s.NotBefore
	}
	return at, true
}
