package qdrant

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestViewConditionsMatchHolds evaluates the time conditions on payloads
// as Qdrant would (datetime ranges, is_empty, nested should/must) and
// compares them with memory.TimeView.Holds on random memories, older
// records (no valid_from, no valid_until) among them. The live acceptance
// suite (storetest TimeViews) runs them on a server.
func TestViewConditionsMatchHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(n int) time.Time { return base.Add(time.Duration(n) * time.Hour) }
	for q := range 5000 {
		m := memory.Memory{ID: "m", CreatedAt: at(r.IntN(20))}
		if r.IntN(3) > 0 {
			m.ValidFrom = at(r.IntN(20))
		}
		if r.IntN(2) == 0 {
			m.Supersede("n", m.ValidSince().Add(time.Duration(r.IntN(10))*time.Hour), at(r.IntN(30)))
			if r.IntN(3) == 0 {
				m.ValidUntil = nil // written before valid_until
			}
		}
		var v memory.TimeView
		if r.IntN(3) > 0 {
			v.AsOf = at(r.IntN(30))
		}
		if r.IntN(2) == 0 || v.AsOf.IsZero() {
			v.KnownAt = at(r.IntN(30))
		}
		p := toPayload(m)
		got := true
		for _, c := range viewConditions(v) {
			got = got && eval(t, c, p)
		}
		if want := v.Holds(&m); got != want {
			t.Fatalf("case %d: view %+v on %+v: conditions %v, Holds %v", q, v, m, got, want)
		}
	}
}

// eval is the subset of Qdrant's condition semantics viewConditions uses.
func eval(t *testing.T, c *qdrant.Condition, p map[string]*qdrant.Value) bool {
	switch {
	case c.GetIsEmpty() != nil:
		_, ok := p[c.GetIsEmpty().GetKey()]
		return !ok
	case c.GetFilter() != nil:
		f := c.GetFilter()
		for _, m := range f.GetMust() {
			if !eval(t, m, p) {
				return false
			}
		}
		if len(f.GetShould()) == 0 {
			return true
		}
		for _, s := range f.GetShould() {
			if eval(t, s, p) {
				return true
			}
		}
		return false
	case c.GetField().GetDatetimeRange() != nil:
		v, ok := p[c.GetField().GetKey()]
		if !ok {
			return false
		}
		at, err := time.Parse(time.RFC3339Nano, v.GetStringValue())
		if err != nil {
			t.Fatal(err)
		}
		rg := c.GetField().GetDatetimeRange()
		return (rg.Lt == nil || at.Before(rg.Lt.AsTime())) && (rg.Gt == nil || at.After(rg.Gt.AsTime())) &&
			(rg.Lte == nil || !at.After(rg.Lte.AsTime())) && (rg.Gte == nil || !at.Before(rg.Gte.AsTime()))
	}
	t.Fatalf("condition %v not evaluated", c)
	return false
}
