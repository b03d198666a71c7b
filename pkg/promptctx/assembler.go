package promptctx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/topics"
)

// TreeLoader reads a tenant's topic tree; topiary.Trees is one. A tenant
// without a tree yet answers topiary.ErrNoTree.
type TreeLoader interface {
	Load(ctx context.Context, tenant string) (topics.Tree, error)
}

// Assembler builds context blocks and resume texts from the store. It only
// reads.
type Assembler struct {
	cfg      Config
	store    store.Store
	recaller *recall.Recaller
	trees    TreeLoader
	domains  *domains.Registry
	tok      Tokenizer
	tokName  string
	now      func() time.Time
	log      *slog.Logger
	resume   resumeDeps // resume's epoch history and LLM (resume_options.go)
}

// Option changes an Assembler.
type Option func(*Assembler)

// WithLogger sets where request failures are logged (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(a *Assembler) { a.log = l } }

// New builds an Assembler. The Recaller may be nil (no contextual layer and
// no query-matched procedures), and so may trees (resume without Topics).
func New(cfg Config, st store.Store, r *recall.Recaller, trees TreeLoader, reg *domains.Registry, tok Tokenizer, now func() time.Time, opts ...Option) (*Assembler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("promptctx config: %w", err)
	}
	switch {
	case st == nil:
		return nil, errors.New("promptctx: a store is required")
	case reg == nil:
		return nil, errors.New("promptctx: a domain registry is required")
	case tok == nil:
		return nil, errors.New("promptctx: a tokenizer is required")
	case now == nil:
		return nil, errors.New("promptctx: a clock is required")
	}
	a := &Assembler{cfg: cfg, store: st, recaller: r, trees: trees, domains: reg, tok: tok, now: now, log: slog.Default()}
	if n, ok := tok.(interface{ Name() string }); ok {
		a.tokName = n.Name()
	}
	for _, o := range opts {
		o(a)
	}
	return a, nil
}

// visible returns the memories of the tenant that a prompt for namespace
// (and default) and subject may use in view v, without their vectors. With
// a subject, that is its own memories, lore and memories of no subject.
func (a *Assembler) visible(ctx context.Context, tenant, namespace, subject string, v memory.TimeView) ([]memory.Memory, error) {
	f := store.Filter{Namespaces: namespaces(namespace), ValidAt: v.AsOf, KnownAt: v.KnownAt}
	if subject != "" {
		f.Subjects = subjects(subject)
	}
	n, err := a.store.Count(ctx, tenant, f)
	if err != nil {
		return nil, fmt.Errorf("count memories of tenant %s: %w", tenant, err)
	}
	out := make([]memory.Memory, 0, n) // a hint: writes may land meanwhile
	err = a.store.Scroll(ctx, tenant, f, func(m memory.Memory) error {
		m.Vector = nil
		if injectable(&m, v) {
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read memories of tenant %s: %w", tenant, err)
	}
	return out, nil
}

// namespaces is a request's namespace and default (003: project plus the
// cross-project default).
func namespaces(ns string) []string {
	if ns == memory.DefaultNamespace {
		return []string{ns}
	}
	return []string{ns, memory.DefaultNamespace}
}

func subjects(subject string) []string {
	if subject == memory.LoreSubject {
		return []string{subject, ""}
	}
	return []string{subject, memory.LoreSubject, ""}
}
