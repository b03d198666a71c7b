package query

import (
	"net/http"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// maxViewFuture bounds how far after now as_of and known_at may lie (as
// recall's as_of).
const maxViewFuture = 10 * 365 * 24 * time.Hour

// timeView reads a listing's as_of (valid time) and known_at (record time)
// query parameters into f; an unreadable one is a *memory.FieldError
// naming it.
func timeView(r *http.Request, now time.Time, f *store.Filter) error {
	for _, p := range []struct {
		name string
		to   *time.Time
	}{{"as_of", &f.ValidAt}, {"known_at", &f.KnownAt}} {
		s := r.URL.Query().Get(p.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return &memory.FieldError{Field: p.name, Reason: "must be an RFC 3339 time such as 2023-05-07T18:30:00Z"}
		}
		if err := memory.CheckTime(p.name, t, now, maxViewFuture); err != nil {
			return err
		}
		*p.to = t
	}
	return nil
}
