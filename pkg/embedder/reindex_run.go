package embedder

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// reindexRounds bounds how often a run starts over: a write that raced a
// pass (a consolidation putting an old model name back) leaves a memory for
// the next round.
const reindexRounds = 3

// Reindex moves the tenant's memories to the configured embedding model in
// two passes, both idempotent, after adopting them from other models'
// places when the store keeps those apart (store.Adopter: Qdrant):
//
//  1. every memory embedded with another model loses its vector and its
//     model name ("pending"), in one write: an old model's vector means
//     nothing next to a new model's query vector, and the local engine
//     refuses a second dimension, but a pending memory is still found by
//     BM25, which does not depend on the model;
//  2. every pending memory (no vector, or no model name) is embedded with
//     the current model, in batches, and stored.
//
// progress is called after every batch (lease renewal, heartbeat); its
// error stops the run. New facts stored meanwhile already use the current
// model. With WithReindexStatuses the run records its state for request id
// as it goes: adopting, running with counts, done.
func (e *Embedder) Reindex(ctx context.Context, tenant, id string, progress func() error) error {
	cur := e.model.Model()
	log := e.log.With("tenant", tenant, "reindex", id, "model", cur)
	if a, ok := e.store.(store.Adopter); ok {
		// Qdrant: the tenant's memories embedded by earlier models sit in
		// those models' collections; bring them over, pending, first.
		_ = e.reindexReport(ctx, tenant, id, ReindexAdopting, 0, 0)
		n, err := a.Adopt(ctx, tenant)
		if n > 0 {
			e.reindexN.WithLabelValues("adopted").Add(float64(n))
			log.InfoContext(ctx, "reindex adopted memories of other models", "memories", n)
		}
		if err != nil {
			return fmt.Errorf("reindex tenant %s: adopt other models' memories: %w", tenant, err)
		}
		if progress != nil {
			if err := progress(); err != nil {
				return err
			}
		}
	}
	moved := 0 // memories handled by earlier rounds
	for round := 0; round < reindexRounds; round++ {
		stale, pending, err := e.reindexState(ctx, tenant)
		if err != nil {
			return err
		}
		if len(stale) == 0 && len(pending) == 0 {
			log.InfoContext(ctx, "reindex done", "round", round)
			return e.reindexDone(ctx, tenant, id, moved)
		}
		log.InfoContext(ctx, "reindex start", "round", round, "stale", len(stale), "pending", len(pending))
		total := moved + len(stale) + len(pending)
		_ = e.reindexReport(ctx, tenant, id, ReindexRunning, moved, total)
		// Pass 1 is one write: the local engine switches the tenant's
		// vector width only once no old vector is left, and until then
		// refuses dense searches with the new width.
		if err := e.clearVectors(ctx, tenant, stale); err != nil {
			return err
		}
		if progress != nil && len(stale) > 0 {
			if err := progress(); err != nil {
				return err
			}
		}
		pending = append(pending, stale...)
		done := 0
		err = e.forEachBatch(pending, progress, func(ids []string) error {
			if err := e.reembed(ctx, tenant, id, ids); err != nil {
				return err
			}
			done += len(ids)
			log.InfoContext(ctx, "reindex progress", "done", done, "total", len(pending))
			_ = e.reindexReport(ctx, tenant, id, ReindexRunning, moved+done, total)
			return nil
		})
		if err != nil {
			return err
		}
		moved += len(pending)
	}
	stale, pending, err := e.reindexState(ctx, tenant)
	if err != nil {
		return err
	}
	if n := len(stale) + len(pending); n > 0 {
		return fmt.Errorf("reindex tenant %s: %d memories still not on %s after %d rounds", tenant, n, cur, reindexRounds)
	}
	return e.reindexDone(ctx, tenant, id, moved)
}

// reindexDone records request id as done; a failed write fails the run,
// whose redelivery finds nothing left to move and writes it again.
func (e *Embedder) reindexDone(ctx context.Context, tenant, id string, moved int) error {
	if err := e.reindexReport(ctx, tenant, id, ReindexDone, moved, moved); err != nil {
		return fmt.Errorf("reindex tenant %s: done, but recording it: %w", tenant, err)
	}
	return nil
}

// reindexState lists the tenant's memories embedded with another model
// (stale) and those without a current vector (pending), archived included.
func (e *Embedder) reindexState(ctx context.Context, tenant string) (stale, pending []string, err error) {
	cur := e.model.Model()
	err = e.store.Scroll(ctx, tenant, store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, func(m memory.Memory) error {
		switch {
		case m.EmbeddingModel != "" && m.EmbeddingModel != cur:
			stale = append(stale, m.ID)
		case m.EmbeddingModel == "" || len(m.Vector) == 0:
			pending = append(pending, m.ID)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list memories of tenant %s to reindex: %w", tenant, err)
	}
	return stale, pending, nil
}

func (e *Embedder) forEachBatch(ids []string, progress func() error, fn func([]string) error) error {
	for batch := range slices.Chunk(ids, e.cfg.ReindexBatch) {
		if err := fn(batch); err != nil {
			return err
		}
		if progress != nil {
			if err := progress(); err != nil {
				return err
			}
		}
	}
	return nil
}

// clearVectors is pass 1 for a batch: the memories keep everything but
// their vector and model name. It re-reads them under their locks, so a
// concurrent reinforcement is neither lost nor undone.
func (e *Embedder) clearVectors(ctx context.Context, tenant string, ids []string) error {
	unlock := e.lockIDs(tenant, ids)
	defer unlock()
	cur := e.model.Model()
	// Written conditionally on the reads (a lost race reads the batch
	// again): another module's write in between is kept.
	return store.Retry(ctx, func() error {
		var out []memory.Memory
		var revs []uint64
		for _, id := range ids {
			m, rev, err := e.getLiveRev(ctx, tenant, id)
			if err != nil {
				return err
			}
			if m == nil || m.EmbeddingModel == cur || m.EmbeddingModel == "" {
				continue // deleted, or moved meanwhile
			}
			m.Vector, m.EmbeddingModel = nil, ""
			out, revs = append(out, *m), append(revs, rev)
		}
		if len(out) == 0 {
			return nil
		}
		if err := store.Write(ctx, e.store, tenant, out, revs, true); err != nil {
			return fmt.Errorf("clear old vectors of tenant %s: %w", tenant, err)
		}
		e.reindexN.WithLabelValues("cleared").Add(float64(len(out)))
		return nil
	})
}

// reembed is pass 2 for a batch: embed outside the locks (it takes a
// while), then store the vectors of the memories whose text did not change
// meanwhile; a memory rewritten meanwhile was embedded by its writer.
func (e *Embedder) reembed(ctx context.Context, tenant, id string, ids []string) error {
	cur := e.model.Model()
	var todo []memory.Memory
	for _, mid := range ids {
		m, err := e.getLive(ctx, tenant, mid)
		if err != nil {
			return err
		}
		if m != nil && (m.EmbeddingModel != cur || len(m.Vector) == 0) {
			todo = append(todo, *m)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	vecs, err := e.embedMemories(ctx, todo)
	if err != nil {
		return fmt.Errorf("embed memories of tenant %s: %w", tenant, err)
	}
	unlock := e.lockIDs(tenant, ids)
	defer unlock()
	var out []memory.Memory
	err = store.Retry(ctx, func() error {
		out = out[:0]
		var revs []uint64
		for i, old := range todo {
			m, rev, err := e.getLiveRev(ctx, tenant, old.ID)
			if err != nil {
				return err
			}
			if m == nil || m.Content != old.Content || m.Key != old.Key || (m.EmbeddingModel == cur && len(m.Vector) > 0) {
				continue
			}
			vecs[i].Apply(m)
			m.EmbeddingModel = cur
			out, revs = append(out, *m), append(revs, rev)
		}
		if len(out) == 0 {
			return nil
		}
		if err := store.Write(ctx, e.store, tenant, out, revs, true); err != nil {
			return fmt.Errorf("store new vectors of tenant %s: %w", tenant, err)
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		return err
	}
	e.reindexN.WithLabelValues("embedded").Add(float64(len(out)))
	for _, m := range out {
		if err := e.announce(ctx, m, memory.StoredUpdated, "reindex:"+id); err != nil {
			return err
		}
	}
	return nil
}

// getLive reads a memory, nil when it was deleted.
func (e *Embedder) getLive(ctx context.Context, tenant, id string) (*memory.Memory, error) {
	m, _, err := e.getLiveRev(ctx, tenant, id)
	return m, err
}

// getLiveRev is getLive with the memory's revision (see getRev).
func (e *Embedder) getLiveRev(ctx context.Context, tenant, id string) (*memory.Memory, uint64, error) {
	m, rev, err := e.getRev(ctx, tenant, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("look up memory %s: %w", id, err)
	}
	return &m, rev, nil
}
