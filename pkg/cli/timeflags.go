package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/client"
)

// instantFlag is an RFC 3339 time flag for a request's as_of or known_at.
type instantFlag struct{ t *client.Instant }

func (f instantFlag) String() string {
	if f.t == nil || f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

func (f instantFlag) Set(s string) error {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("must be an RFC 3339 time such as 2023-05-07T18:30:00Z (got %q)", s)
	}
	*f.t = client.Instant{Time: t}
	return nil
}

func (instantFlag) Type() string { return "time" }

// registerTimeViews adds --as-of (valid time) and --known-at (record time).
func registerTimeViews(fs *pflag.FlagSet, asOf, knownAt *client.Instant) {
	fs.Var(instantFlag{asOf}, "as-of", "answer what was true at this RFC 3339 time (valid time): the versions valid then, superseded since or not")
	fs.Var(instantFlag{knownAt}, "known-at", "answer from what Recollect knew at this RFC 3339 time (record time)")
}
