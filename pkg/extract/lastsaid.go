package extract

import (
	"sync"
)

// lastSaidSessions bounds the sessions whose last message is remembered.
const lastSaidSessions = 8192

// lastSaid remembers the last message of recent sessions, so that a turn
// streamed on its own gets the message before it as context. It is a
// best-effort cache of this process: after a restart, or when another
// replica took the session's previous turn, a turn has no context (its
// transcript memory is stored all the same). The oldest session is
// forgotten first.
type lastSaid struct {
	mu    sync.Mutex
	byKey map[string]said
	order []string // insertion order, oldest first (a ring once full)
	next  int
}

func newLastSaid() *lastSaid { return &lastSaid{byKey: map[string]said{}} }

// swap records m as the session's last message when it is not older than
// the one recorded, and returns the message before m, if known.
func (l *lastSaid) swap(session string, m said) (prev *said) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.byKey[session]; ok {
		if m.ts.Before(p.ts) {
			return nil // out of order: its predecessor is not known here
		}
		if p.id != m.id || p.id == "" {
			prev = &p
		}
		l.byKey[session] = m
		return prev
	}
	if len(l.order) < lastSaidSessions {
		l.order = append(l.order, session)
	} else {
		delete(l.byKey, l.order[l.next])
		l.order[l.next] = session
		l.next = (l.next + 1) % lastSaidSessions
	}
	l.byKey[session] = m
	return nil
}
