package jsonl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// ctxCheckLines is how often a scan looks at its context.
const ctxCheckLines = 4096

// Totals scans the whole file. A last line without a newline is an append
// in progress and is skipped; undecodable lines are skipped and logged.
func (l *Log) Totals(ctx context.Context, q usage.Query) ([]usage.Total, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sum usage log: %w", err)
	}
	f, err := os.Open(l.path)
	if err != nil {
		return nil, fmt.Errorf("open usage log %s: %w", l.path, err)
	}
	defer f.Close()

	var (
		tally usage.Tally
		bad   int
		rd    = bufio.NewReaderSize(f, 64<<10)
	)
	for n := 1; ; n++ {
		if n%ctxCheckLines == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("sum usage log: %w", err)
			}
		}
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a partial last line, if any, is not a record yet
		}
		if err != nil {
			return nil, fmt.Errorf("read usage log %s: %w", l.path, err)
		}
		var r usage.Record
		if err := json.Unmarshal(line, &r); err != nil {
			bad++
			continue
		}
		if q.Match(r) {
			tally.Add(r)
		}
	}
	if bad > 0 {
		l.log.Warn("usage log has undecodable lines, skipped", "path", l.path, "lines", bad)
	}
	return tally.Totals(), nil
}
