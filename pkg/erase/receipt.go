package erase

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
)

// States of a receipt and of each place in it.
const (
	StateRunning    = "running"    // the receipt: places still pending
	StateComplete   = "complete"   // the receipt: every place erased
	StateIncomplete = "incomplete" // the receipt: a place failed or could not erase
	StatePending    = "pending"    // a place not done yet
	StateErased     = "erased"     // a place holds none of the subject's text now
	StateFailed     = "failed"     // a place erred; Note says why (a retry of the purge resumes)
	StateNotErased  = "not_erased" // a place that cannot erase; Note says why
)

// Receipt answers a purge: per place, what was erased. It names the tenant
// and ids only, never the subject or its words, so it can be kept.
type Receipt struct {
	ID       string         `json:"id"`
	Tenant   string         `json:"tenant"`
	State    string         `json:"state"`
	Started  time.Time      `json:"started"`
	Finished *time.Time     `json:"finished,omitempty"`
	Places   []PlaceReceipt `json:"places"`
}

// PlaceReceipt is one place's part: Erased counts what it removed or
// rewrote there (memories, entries, messages, objects), Note says what was
// counted or why nothing could be.
type PlaceReceipt = api.ErasurePlace

// Done reports whether no place is pending.
func (r Receipt) Done() bool { return r.State != StateRunning }

// settle sets the receipt's state from its places'.
func (r *Receipt) settle(now time.Time) {
	state := StateComplete
	for _, p := range r.Places {
		switch p.State {
		case StatePending:
			r.State = StateRunning
			return
		case StateFailed, StateNotErased:
			state = StateIncomplete
		}
	}
	r.State = state
	r.Finished = &now
}

func (r Receipt) clone() Receipt {
	c := r
	c.Places = append([]PlaceReceipt(nil), r.Places...)
	if r.Finished != nil {
		f := *r.Finished
		c.Finished = &f
	}
	return c
}
