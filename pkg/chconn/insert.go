package chconn

import (
	"context"
	"errors"
	"fmt"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// codeUnknownTable is ClickHouse's UNKNOWN_TABLE error code.
const codeUnknownTable = 60

// Insert writes n rows as one batch. columns is the explicit column list,
// which keeps inserts working on old servers and after an operator adds
// columns; row(i) gives the values of row i in that order. If the table
// has gone (a server rebuilt during an outage), it is created again and
// the batch retried once.
func (t *Table) Insert(ctx context.Context, columns string, n int, row func(i int) []any) error {
	if n == 0 {
		return nil
	}
	if err := t.Connect(ctx); err != nil {
		return err
	}
	err := t.insert(ctx, columns, n, row)
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == codeUnknownTable {
		if cerr := t.createTable(ctx); cerr != nil {
			return errors.Join(err, cerr)
		}
		err = t.insert(ctx, columns, n, row)
	}
	return err
}

func (t *Table) insert(ctx context.Context, columns string, n int, row func(i int) []any) error {
	batch, err := t.conn.PrepareBatch(ctx, "INSERT INTO "+t.name+" ("+columns+")")
	if err != nil {
		return fmt.Errorf("prepare insert into %s on %s: %w", t.name, t.addrs, err)
	}
	defer func() {
		if !batch.IsSent() {
			_ = batch.Abort()
		}
	}()
	for i := range n {
		if err := batch.Append(row(i)...); err != nil {
			return fmt.Errorf("append row %d to the batch for %s: %w", i, t.name, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("insert %d rows into %s on %s: %w", n, t.name, t.addrs, err)
	}
	return nil
}
