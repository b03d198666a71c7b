package erase

import "context"

// Target is what one purge erases: the subject's memories and everything
// derived from them (the closure the store deleted), with what identifies
// their copies elsewhere.
type Target struct {
	Tenant  string
	Subject string
	// IDs are the purged memories.
	IDs []string
	// Texts are their contents, as embedded (caches are keyed by text).
	Texts []string
	// Events are the ids of the conversation events they came from.
	Events []string
	// Namespaces are the namespaces the purged memories were in.
	Namespaces []string
	// Receipt is the id of the purge's receipt (set by Eraser.Start).
	Receipt string
}

// sets indexes the ids for matching.
func (t Target) sets() targetSets {
	s := targetSets{ids: make(map[string]bool, len(t.IDs)), events: make(map[string]bool, len(t.Events))}
	for _, id := range t.IDs {
		s.ids[id] = true
	}
	for _, id := range t.Events {
		s.events[id] = true
	}
	return s
}

type targetSets struct {
	ids, events map[string]bool
	// sessions are namespace "\x00" session of the subject's conversations
	// (filled by the streams place).
	sessions map[string]bool
}

// Place is one place that keeps copies. Erase removes the target's text
// there and says how much it removed; it must be idempotent (a purge is
// retried by asking again) and return ErrCannot, wrapped with why, when
// the place cannot erase at all.
type Place interface {
	Name() string
	Erase(ctx context.Context, t Target) (Outcome, error)
}

// Outcome is what a place erased.
type Outcome struct {
	Erased int
	Note   string
}

// PlaceFunc makes a Place of a name and a function.
type PlaceFunc struct {
	Place string
	Func  func(ctx context.Context, t Target) (Outcome, error)
}

func (p PlaceFunc) Name() string { return p.Place }

func (p PlaceFunc) Erase(ctx context.Context, t Target) (Outcome, error) { return p.Func(ctx, t) }
