package app

import (
	"context"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	auditch "github.com/recollect-dev/recollect/pkg/auditlog/clickhouse"
	auditjsonl "github.com/recollect-dev/recollect/pkg/auditlog/jsonl"
	"github.com/recollect-dev/recollect/pkg/modules"
)

// initAudit opens the consolidation audit log: the ClickHouse of
// --clickhouse-dsn (next to the usage log) in a distributed deployment,
// else day files in <data-dir>/audit. Writes are counted, and failed ones
// logged, by auditlog.Metered.
func (a *App) initAudit(ctx context.Context) (modules.Service, error) {
	if a.cfg.ClickHouse.DSN != "" {
		s, err := auditch.Open(ctx, a.cfg.ClickHouse.DSN, a.cfg.Audit)
		if err != nil {
			return nil, err
		}
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
