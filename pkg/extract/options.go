package extract

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/lock"
)

// Option configures an Extractor.
type Option func(*Extractor)

// WithLLM enables per-domain LLM extraction and the personality directive
// through c. A client whose Enabled method reports false (level off)
// leaves rule capture alone, as does nil.
func WithLLM(c Chatter) Option {
	return func(x *Extractor) {
		if e, ok := c.(interface{ Enabled() bool }); ok && !e.Enabled() {
			c = nil
		}
		x.chat = c
	}
}

// WithDomains sets the domain registry (default: the built-in domains).
func WithDomains(r *domains.Registry) Option {
	return func(x *Extractor) {
		if r != nil {
			x.domains = r
		}
	}
}

// WithLocker sets the leases that keep one extraction per session at a
// time across processes (default: in-process leases, for one process).
func WithLocker(l lock.Locker) Option {
	return func(x *Extractor) {
		if l != nil {
			x.locks = l
		}
	}
}

// withTick sets how often the schedule looks for due sessions; 0 disables
// the loop, so tests drive it with runDue under a fake clock.
func withTick(d time.Duration) Option { return func(x *Extractor) { x.tick = d } }

// withInstance fixes the process's identity, for tests of replicas.
func withInstance(id string) Option { return func(x *Extractor) { x.instance = id } }
