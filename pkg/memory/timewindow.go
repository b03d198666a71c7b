package memory

import (
	"fmt"
	"time"
)

// DefaultMaxFutureSkew is how far into the future a client's timestamp may
// lie (clock skew between hosts) unless configured otherwise.
const DefaultMaxFutureSkew = 24 * time.Hour

// Epoch is the earliest timestamp accepted: 1970-01-01T00:00:00Z.
var Epoch = time.Unix(0, 0).UTC()

// CheckTime refuses a timestamp before Epoch or more than maxFutureSkew
// after now (no future bound when maxFutureSkew is not positive), naming
// field and the limit. A zero t is left to the caller's default.
func CheckTime(field string, t, now time.Time, maxFutureSkew time.Duration) error {
	if t.IsZero() {
		return nil
	}
	if t.Before(Epoch) {
		return fieldErr(field, "is before %s (got %s)", Epoch.Format(time.RFC3339), t.UTC().Format(time.RFC3339))
	}
	if maxFutureSkew > 0 {
		if limit := now.Add(maxFutureSkew); t.After(limit) {
			return fieldErr(field, "is more than %s in the future (limit %s, got %s)", maxFutureSkew, limit.UTC().Format(time.RFC3339), t.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// CheckTimes applies CheckTime to the event's timestamp and those of its
// messages.
func (e *Event) CheckTimes(now time.Time, maxFutureSkew time.Duration) error {
	if err := CheckTime("ts", e.TS, now, maxFutureSkew); err != nil {
		return err
	}
	for i := range e.Messages {
		if err := CheckTime(fmt.Sprintf("messages[%d].ts", i), e.Messages[i].TS, now, maxFutureSkew); err != nil {
			return err
		}
	}
	return nil
}
