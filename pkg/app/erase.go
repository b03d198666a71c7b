package app

import (
	"context"

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
		places = append(places, erase.Audit(r))
	}
	places = append(places, erase.Streams(js), erase.TopicTrees(js, topiary.TreeBucket),
		erase.KVEntries(js, "extractor-state", []string{extract.SessionBucket, extract.StyleBucket}, func(t erase.Target, key string, value []byte) bool {
			return extract.HoldsSubject(key, value, t.Tenant, t.Subject, t.Namespaces)
		}))
	caches := make([]erase.Forgetter, len(a.caches))
	for i, c := range a.caches {
		caches[i] = c
	}
	places = append(places, erase.Caches(a.sharedEmbedCache(), caches...), erase.Usage(), erase.AuditRecord(a.audit, a.now))
	return erase.New(places, a.log, erase.WithReceiptStore(receipts), erase.WithClock(a.now)), nil
}

// sharedEmbedCache reports whether the embedding cache is the Redis every
// process shares (as initModel decides).
func (a *App) sharedEmbedCache() bool {
	return a.cfg.Redis.URL != "" && a.cfg.EmbedCache.Kind != "off" && a.cfg.EmbedCache.Kind != "memory"
}
