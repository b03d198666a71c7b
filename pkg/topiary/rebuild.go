package topiary

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/topics"
)

// Rebuild builds, names and saves a tenant's topic tree under its lease.
// While another rebuild of the tenant holds the lease it returns an error
// wrapping lock.ErrHeld.
func (t *Topiary) Rebuild(ctx context.Context, tenant string) error {
	lease, err := t.locks.Acquire(ctx, "topiary:"+tenant, t.cfg.LeaseTTL)
	if err != nil {
		t.rebuilds.WithLabelValues("busy").Inc()
		return fmt.Errorf("rebuild topics of %s: %w", tenant, err)
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	prev, err := t.trees.load(ctx, tenant)
	if err != nil && !errors.Is(err, ErrNoTree) {
		t.rebuilds.WithLabelValues("error").Inc()
		return err
	}
	now := t.now().UTC()
	// The builder copies each vector as the scroll hands it over, so the
	// memories are never all held with their vectors. The filter leaves out
	// archived and superseded memories: they keep their history but are
	// not in the index; and transcript memories (what was said, message by
	// message): topics organise what is known, not the conversation.
	b := topics.NewBuilder()
	err = t.store.Scroll(ctx, tenant, indexed, func(m memory.Memory) error {
		b.Add(topics.Item{ID: m.ID, Vector: m.Vector, Text: m.Content, Domain: m.Domain, Importance: m.Importance})
		return nil
	})
	if err != nil {
		t.rebuilds.WithLabelValues("error").Inc()
		return fmt.Errorf("read memories of %s: %w", tenant, err)
	}
	tree := b.Build(tenant, t.opts, now)
	// A topic substantially the same as one of the previous tree keeps its
	// id, so ids an agent or a person holds survive the rebuild.
	tree.KeepIDs(prev.Tree)
	// Naming shows a few texts per topic: only those outlive the build.
	texts := sampleTexts(tree, b.Text)
	named := t.nameTopics(ctx, tenant, tree, prev, texts)
	if err := t.trees.Save(ctx, tree, named); err != nil {
		t.rebuilds.WithLabelValues("error").Inc()
		return err
	}
	t.rebuilds.WithLabelValues("ok").Inc()
	t.log.InfoContext(ctx, "topic tree rebuilt", "tenant", tenant, "memories", tree.Memories, "topics", len(tree.Roots), "llm_named", len(named))
	return nil
}

// rebuildMissing rebuilds, one tenant after the other, the tree of every
// tenant that has memories but no tree: a new deployment, or a tree bucket
// lost. Another instance holding a tenant's lease builds that one.
func (t *Topiary) rebuildMissing(ctx context.Context) {
	tenants, err := t.store.Tenants(ctx)
	if err != nil {
		t.log.WarnContext(ctx, "list tenants for the start-up rebuild", "error", err)
		return
	}
	for _, tenant := range tenants {
		if ctx.Err() != nil {
			return
		}
		_, err := t.trees.Load(ctx, tenant)
		if !errors.Is(err, ErrNoTree) {
			if err != nil {
				t.log.WarnContext(ctx, "check topic tree at start-up", "tenant", tenant, "error", err)
			}
			continue
		}
		n, err := t.store.Count(ctx, tenant, indexed)
		if err != nil {
			t.log.WarnContext(ctx, "count memories for the start-up rebuild", "tenant", tenant, "error", err)
			continue
		}
		if n == 0 {
			continue
		}
		p := t.schedule(tenant, true)
		select {
		case <-p.done:
		case <-ctx.Done():
			return
		}
		switch {
		case p.err == nil:
		case errors.Is(p.err, lock.ErrHeld):
			t.log.InfoContext(ctx, "topic tree being rebuilt elsewhere", "tenant", tenant)
		default:
			t.log.WarnContext(ctx, "start-up topic tree rebuild", "tenant", tenant, "error", p.err)
		}
	}
}

// indexed is what a topic tree organises: current memories, not the
// transcript memories.
var indexed = store.Filter{ExcludeTags: []string{memory.TranscriptTag}}
