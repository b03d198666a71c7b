package app

import (
	"context"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	auditch "github.com/recollect-dev/recollect/pkg/auditlog/clickhouse"
	auditjsonl "github.com/recollect-dev/recollect/pkg/auditlog/jsonl"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/modules"
)

// initAudit opens the consolidation audit log: the ClickHouse of
// --clickhouse-dsn (next to the usage log) in a distributed deployment,
// else day files in <data-dir>/audit. Writes are counted, and failed ones
// logged, by auditlog.Metered.
func (a *App) initAudit(ctx context.Context) (modules.Service, error) {
	if a.cfg.ClickHouse.DSN != "" {
		if err := a.cfg.Audit.Validate(); err != nil {
			return nil, err
		}
		s := &lazyAudit{open: func(ctx context.Context) (*auditch.Store, error) {
			return auditch.Open(ctx, a.cfg.ClickHouse.DSN, a.cfg.Audit)
		}}
		a.waitForBackend("clickhouse (audit log)", s.connect)
		a.audit = auditlog.NewMetered(s, a.reg, a.log, a.now)
		return modules.Closer(s.Close), nil
	}
	dir, err := a.cfg.dir("audit")
	if err != nil {
		return nil, err
	}
	l, err := auditjsonl.Open(dir, auditjsonl.WithLogger(a.log))
	if err != nil {
		return nil, err
	}
	a.audit = auditlog.NewMetered(l, a.reg, a.log, a.now)
	return nil, nil
}

// auditJournal is the consolidator's journal on the audit log: one entry
// per operation, stamped with the epoch's start, in the order the epoch
// made them (reads give the last first). Pass it as
// consolidate.WithJournal(auditJournal{a.audit}).
type auditJournal struct{ w auditlog.Writer }

// Record writes the epoch's operations as one batch.
func (j auditJournal) Record(ctx context.Context, e consolidate.EpochRecord) error {
	entries := make([]auditlog.Entry, len(e.Ops))
	for i, op := range e.Ops {
		entries[i] = auditlog.Entry{
			Time:      e.At,
			Tenant:    e.Tenant,
			Epoch:     e.Epoch,
			Seq:       e.Seq,
			Phase:     op.Phase,
			Op:        op.Op,
			MemoryIDs: op.MemoryIDs,
			Before:    auditlog.Snapshot(op.Before...),
			After:     auditlog.Snapshot(op.After...),
			Applied:   op.Applied,
			Reason:    auditlog.ClipReason(op.Reason),
			Decider:   op.Decider,
			Model:     op.Model,
		}
	}
	if err := j.w.Write(ctx, entries); err != nil {
		return fmt.Errorf("write %d audit entries of epoch %s: %w", len(entries), e.Epoch, err)
	}
	return nil
}
