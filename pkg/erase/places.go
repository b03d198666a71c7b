package erase

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/store"
)

// StoreFiles is the place of the store's files: the memories were deleted
// before the purge answered; a store that keeps a log (the local engine,
// here or behind the store target) is compacted so their bytes leave every
// file. Qdrant deletes points itself but keeps them in its WAL and
// segments until its optimizer runs: the receipt says so.
func StoreFiles(st store.Store) Place {
	return PlaceFunc{Place: "store-files", Func: func(ctx context.Context, t Target) (Outcome, error) {
		c, ok := st.(store.Compactor)
		if !ok {
			return Outcome{}, fmt.Errorf("%w: the store deleted the points; a Qdrant keeps them in its WAL and segments until its optimizer rewrites them", ErrCannot)
		}
		if err := c.Compact(ctx); err != nil {
			return Outcome{}, fmt.Errorf("compact the store: %w", err)
		}
		return Outcome{Erased: len(t.IDs), Note: "log and snapshots rewritten without the purged memories"}, nil
	}}
}

// Audit is the place of the audit log: entries naming a purged memory are
// redacted to ids and operation.
func Audit(r auditlog.Redactor) Place {
	return PlaceFunc{Place: "audit", Func: func(ctx context.Context, t Target) (Outcome, error) {
		n, err := r.Redact(ctx, t.Tenant, t.IDs)
		if errors.Is(err, auditlog.ErrCannotRedact) {
			return Outcome{}, fmt.Errorf("%w: %v", ErrCannot, err)
		}
		if err != nil {
			return Outcome{Erased: n}, fmt.Errorf("redact the audit log: %w", err)
		}
		return Outcome{Erased: n, Note: "entries redacted to ids and operation"}, nil
	}}
}

// Forgetter drops the cached vectors of texts (cache.Embedder).
type Forgetter interface {
	Forget(ctx context.Context, texts []string) (int, error)
}

// Caches is the place of the embedding caches this process reaches: the
// in-process LRU, or the Redis every process shares. They hold vectors
// keyed by a hash, never text; another process's in-process LRU keeps its
// vectors until evicted (note says so when shared is false).
func Caches(shared bool, caches ...Forgetter) Place {
	return PlaceFunc{Place: "embedding-cache", Func: func(ctx context.Context, t Target) (Outcome, error) {
		total := 0
		for _, c := range caches {
			n, err := c.Forget(ctx, t.Texts)
			total += n
			if err != nil {
				return Outcome{Erased: total}, err
			}
		}
		note := "cached vectors of the purged texts dropped (the cache keeps no text)"
		if !shared {
			note += "; in-process caches of other processes keep theirs until evicted"
		}
		return Outcome{Erased: total, Note: note}, nil
	}}
}

// Usage is the place of the usage log, which keeps no free text.
func Usage() Place {
	return PlaceFunc{Place: "usage", Func: func(context.Context, Target) (Outcome, error) {
		return Outcome{Note: "holds no free text (tenant, component, model, tokens, outcome)"}, nil
	}}
}

// AuditRecord records the purge itself in the audit log, by ids only; it
// goes last so the redaction before it does not redact it.
func AuditRecord(w auditlog.Writer, now func() time.Time) Place {
	return PlaceFunc{Place: "audit-record", Func: func(ctx context.Context, t Target) (Outcome, error) {
		e := auditlog.Entry{Time: now().UTC(), Tenant: t.Tenant, Phase: "purge", Op: "delete", MemoryIDs: t.IDs,
			Applied: true, Decider: auditlog.DeciderUser, Epoch: "erasure-" + t.Receipt}
		if err := w.Write(ctx, []auditlog.Entry{e}); err != nil {
			return Outcome{}, fmt.Errorf("record the purge: %w", err)
		}
		return Outcome{Erased: 0, Note: fmt.Sprintf("purge of %d memories recorded by ids", len(t.IDs))}, nil
	}}
}
