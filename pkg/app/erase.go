package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/extract"
	"github.com/recollect-dev/recollect/pkg/topiary"
)

// newEraser builds what carries a subject purge to every copy, in the
// order the places run: the store's files first (nothing rebuilt later may
// read the subject back), then the audit log, the streams, the topic trees,
// the caches, the usage log, and last the purge's own audit record.
// Receipts are kept in the bus, so any query replica reads them.
func (a *App) newEraser(ctx context.Context) (*erase.Eraser, error) {
	js := a.bus.JetStream()
	receipts, err := erase.OpenKVReceipts(ctx, js)
	if err != nil {
		return nil, err
	}
	places := []erase.Place{erase.StoreFiles(a.store)}
	if r, ok := a.audit.(auditlog.Redactor); ok {
		places = append(places, a.auditPlace(erase.Audit(r)))
	}
	sealer, err := extract.OpenSealer(ctx, js, a.now)
	if err != nil {
		return nil, err
	}
	places = append(places, erase.Streams(js), erase.TopicTrees(js, topiary.TreeBucket),
		erase.KVEntries(js, "extractor-state", []string{extract.SessionBucket, extract.StyleBucket}, sealer, func(t erase.Target, key string, value []byte) bool {
			return extract.HoldsSubject(key, value, t.Tenant, t.Subject, t.Namespaces)
		}))
	caches := make([]erase.Forgetter, len(a.caches))
	for i, c := range a.caches {
		caches[i] = c
	}
	places = append(places, erase.Caches(a.sharedEmbedCache(), caches...), erase.Usage(), erase.AuditRecord(a.audit, a.now))
	return erase.New(places, a.log, erase.WithReceiptStore(receipts), erase.WithClock(a.now),
		erase.WithRegisterer(a.reg), erase.WithOnFinished(a.announcePurge)), nil
}

// sharedEmbedCache reports whether the embedding cache is the Redis every
// process shares (as initModel decides).
func (a *App) sharedEmbedCache() bool {
	return a.cfg.Redis.URL != "" && a.cfg.EmbedCache.Kind != "off" && a.cfg.EmbedCache.Kind != "memory"
}

// auditPlace is the audit log's place, saying not_erased when the entries
// are day files in another process's data dir: a split deployment without
// --clickhouse-dsn keeps the consolidator's audit log where this process
// cannot reach it.
func (a *App) auditPlace(p erase.Place) erase.Place {
	if a.cfg.ClickHouse.DSN != "" || a.cfg.singleProcess() || slices.Contains(a.cfg.Targets, TargetConsolidator) {
		return p
	}
	return erase.PlaceFunc{Place: p.Name(), Func: func(ctx context.Context, t erase.Target) (erase.Outcome, error) {
		out, err := p.Erase(ctx, t)
		if err != nil {
			return out, err
		}
		return out, fmt.Errorf("%w: %d entries redacted here, but the consolidator's audit day files are in its own data dir (a split deployment without --clickhouse-dsn): this purge does not reach them; set --clickhouse-dsn to keep the audit log in one place", erase.ErrCannot, out.Erased)
	}}
}
