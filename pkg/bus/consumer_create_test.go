package bus

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestUnanswered: a JetStream request nobody answered in time is asked
// again; a refusal is not.
func TestUnanswered(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("create: %w", context.DeadlineExceeded), true},
		{nats.ErrTimeout, true},
		{fmt.Errorf("wrapped: %w", nats.ErrNoResponders), true},
		{jetstream.ErrStreamNotFound, false},
		{errors.New("consumer name already in use"), false},
	} {
		if got := unanswered(tc.err); got != tc.want {
			t.Errorf("unanswered(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
