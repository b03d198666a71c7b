package recall

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/temporal"
)

// A question can name one of the tenant's sessions by its place in time —
// "Which error did I run into in our fourth session, and how did we fix
// it?" — and nothing in the memories says "fourth": the words match every
// session's errors alike. Recall resolves the ordinal against the tenant's
// sessions (store.SessionLister, ordered by the valid time of their first
// memory, none begun after as_of), adds the named session's memories
// nearest the query as candidates (a session channel, sessionChannelK of
// them, one store search), and multiplies the score of a memory of that
// session by sessionBoost (session_factor). On the four DevChat sets (built-in
// model, turn events) the 62 questions naming a session by its place went
// from 43 to 55 with their evidence in the first 10; the temporal class's
// nDCG@10 went 0.755 → 0.813 (classes), 0.647 → 0.773 (DevChat), 0.708 →
// 0.775 (aliases), 0.696 → 0.756 (names), no other class moved; LoCoMo dev
// asks no such question. A boost of 1.3 gained most of that, but less,
// 2.0 a little more than 1.6 (docs/BENCHMARKS.md). A store that cannot list
// sessions (Qdrant) leaves the question as it was.
const sessionBoost = 1.6

// sessionOrdinalPattern: a question naming one of the tenant's sessions by
// its place in time ("in our fourth session", "in my 2nd conversation",
// "during our last session").
var sessionOrdinalPattern = regexp.MustCompile(`(?i)\b(?:our|my|the)\s+(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d{1,3}(?:st|nd|rd|th)|last|latest|most\s+recent)\s+(?:session|conversation|chat)\b`)

// sessionOrdinal reads the session a question names by its place: n ≥ 1
// counts from the first, n = -1 is the latest; ok is false when the
// question names none.
func sessionOrdinal(query string) (n int, ok bool) {
	lower := strings.ToLower(query)
	if !strings.Contains(lower, "session") && !strings.Contains(lower, "conversation") && !strings.Contains(lower, "chat") {
		return 0, false // most questions: no pattern to run (4 µs)
	}
	m := sessionOrdinalPattern.FindStringSubmatch(query)
	if m == nil {
		return 0, false
	}
	w := strings.ToLower(m[1])
	if n, ok := temporal.Ordinal(w); ok {
		return n, true
	}
	if w[0] >= '0' && w[0] <= '9' {
		return 0, false // 0th
	}
	return -1, true // last, latest, most recent
}

// namedSession resolves the session the request's question names by its
// place in time among the tenant's sessions that the request's filters let
// through, ordered by the valid time of their first memory: "" when it
// names none, or when the store cannot list sessions, or there is no such
// session.
func (r *Recaller) namedSession(ctx context.Context, req Request) (string, error) {
	n, ok := sessionOrdinal(req.Query)
	if !ok {
		return "", nil
	}
	f := r.filter(req)
	f.Days, f.Sessions = nil, nil
	spans, err := listSessions(ctx, r.store, req.Tenant, f)
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	if !req.view.AsOf.IsZero() {
		spans = slices.DeleteFunc(spans, func(s store.SessionSpan) bool { return s.First.After(req.view.AsOf) })
	}
	switch {
	case len(spans) == 0:
		return "", nil
	case n == -1:
		return spans[len(spans)-1].Session, nil
	case n > len(spans):
		return "", nil
	}
	return spans[n-1].Session, nil
}

// listSessions is the store's session list; none (and no error) when the
// store cannot list sessions (Qdrant; a remote store server that cannot):
// the question is then read without its session.
func listSessions(ctx context.Context, st store.Store, tenant string, f store.Filter) ([]store.SessionSpan, error) {
	sl, ok := st.(store.SessionLister)
	if !ok {
		return nil, nil
	}
	spans, err := sl.Sessions(ctx, tenant, f)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, nil
	}
	return spans, err
}

// sessionChannelK is how many memories of the named session the session
// channel adds, by meaning.
const sessionChannelK = 50

// addSessionHits adds the named session's memories nearest the query.
func (r *Recaller) addSessionHits(ctx context.Context, sc *store.Scratch, tenant, session string, vec queryVector, f store.Filter, keep func(memory.Memory) bool, cands []candidate) ([]candidate, error) {
	v, err := vec(ctx)
	if err != nil {
		return nil, err
	}
	f.Sessions = []string{session}
	hits, err := r.extraChannel(ctx, "session channel", store.Query{Tenant: tenant, Vector: v, K: sessionChannelK, Filter: f, Chunks: true, Scratch: sc})
	if err != nil {
		return nil, err
	}
	at := make(map[string]bool, len(cands))
	for _, c := range cands {
		at[c.mem.ID] = true
	}
	for j := range hits {
		h := &hits[j]
		if at[h.Memory.ID] || keep != nil && !keep(h.Memory) {
			continue
		}
		cands = append(cands, candidate{mem: &h.Memory, semantic: fairCosine(h.Score, &h.Memory), dense: true})
	}
	return cands, nil
}
