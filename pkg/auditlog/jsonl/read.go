package jsonl

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

// ctxCheckLines is how often a scan looks at its context.
const ctxCheckLines = 4096

// Read scans the day files newest first; a file holds one UTC day of entry
// times, so once Limit entries are found older files cannot hold newer
// ones. A last line without a newline (an append in progress, or torn by a
// crash) and undecodable lines are skipped; the latter are logged.
func (l *Log) Read(ctx context.Context, q auditlog.Query) ([]auditlog.Entry, error) {
	q, err := q.Normalized()
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	days, err := l.days()
	if err != nil {
		return nil, err
	}
	out := []auditlog.Entry{}
	for _, d := range days {
		if !q.Since.IsZero() && !d.day.Add(24*time.Hour).After(q.Since) {
			break // this day and every older one end before Since
		}
		if !q.Until.IsZero() && !d.day.Before(q.Until) {
			continue
		}
		found, err := l.scan(ctx, d.path, q)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
		if len(out) >= q.Limit {
			return out[:q.Limit], nil
		}
	}
	return out, nil
}

type dayFile struct {
	day  time.Time
	path string
}

// days lists the day files, newest first; other files are ignored.
func (l *Log) days() ([]dayFile, error) {
	des, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("list audit log dir %s: %w", l.dir, err)
	}
	var out []dayFile
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasPrefix(name, filePrefix) || !strings.HasSuffix(name, fileSuffix) {
			continue
		}
		day, err := time.Parse(dayLayout, strings.TrimSuffix(strings.TrimPrefix(name, filePrefix), fileSuffix))
		if err != nil {
			continue
		}
		out = append(out, dayFile{day: day, path: filepath.Join(l.dir, name)})
	}
	slices.SortFunc(out, func(a, b dayFile) int { return b.day.Compare(a.day) })
	return out, nil
}

// scan returns the file's entries that q selects, newest first.
func (l *Log) scan(ctx context.Context, path string, q auditlog.Query) ([]auditlog.Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // removed by an operator since the listing
	}
	if err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	defer f.Close()
	var (
		found []auditlog.Entry
		bad   int
		rd    = bufio.NewReaderSize(f, 64<<10)
	)
	for n := 1; ; n++ {
		if n%ctxCheckLines == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("read audit log: %w", err)
			}
		}
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a partial last line, if any, is not an entry
		}
		if err != nil {
			return nil, fmt.Errorf("read audit log %s: %w", path, err)
		}
		var e auditlog.Entry
		if err := json.Unmarshal(line, &e); err != nil {
			bad++
			continue
		}
		if q.Match(&e) {
			found = append(found, e)
		}
	}
	if bad > 0 {
		l.log.Warn("audit log has undecodable lines, skipped", "path", path, "lines", bad)
	}
	// Later lines were written later: reversed, a stable sort keeps the
	// reverse write order among equal times and sequence numbers.
	slices.Reverse(found)
	slices.SortStableFunc(found, func(a, b auditlog.Entry) int {
		return cmp.Or(b.Time.Compare(a.Time), cmp.Compare(b.Seq, a.Seq))
	})
	return found, nil
}
