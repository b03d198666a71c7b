// Package jsonl is the audit backend of the single-process mode: one file
// of JSON lines per UTC day of the entries' time, audit-YYYY-MM-DD.jsonl,
// in the audit directory of the data dir. Writes append and fsync per
// batch; reads scan the newest files first and stop at the limit.
package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

// Day files are named audit-<day>.jsonl.
const (
	filePrefix = "audit-"
	fileSuffix = ".jsonl"
	dayLayout  = "2006-01-02"
)

// Log is an auditlog.Log on a directory. Writers of one process share a
// Log; the files are never rewritten, only appended to (a failed append is
// cut back so a retried batch is not stored twice).
type Log struct {
	dir string
	log *slog.Logger
	mu  sync.Mutex // serialises appends
}

var _ auditlog.Log = (*Log)(nil)

// Option tunes a Log.
type Option func(*Log)

// WithLogger sets where torn and undecodable lines are reported.
func WithLogger(l *slog.Logger) Option {
	return func(lg *Log) {
		if l != nil {
			lg.log = l
		}
	}
}

// Open creates dir if needed.
func Open(dir string, opts ...Option) (*Log, error) {
	l := &Log{dir: dir, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(l)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("create audit log dir %s: %w", dir, err)
	}
	return l, nil
}

// Dir is the directory of the day files.
func (l *Log) Dir() string { return l.dir }

// FileName is the file that keeps entries of t's UTC day.
func FileName(t time.Time) string { return filePrefix + t.UTC().Format(dayLayout) + fileSuffix }

// Write appends the batch, each entry to the file of its day, and fsyncs.
// An invalid entry refuses the whole batch; a failed append is undone in
// every file the batch touched.
func (l *Log) Write(ctx context.Context, entries []auditlog.Entry) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append %d audit entries: %w", len(entries), err)
	}
	if len(entries) == 0 {
		return nil
	}
	if err := auditlog.ValidateAll(entries); err != nil {
		return fmt.Errorf("append %d audit entries: %w", len(entries), err)
	}
	var days []string
	lines := map[string]*bytes.Buffer{}
	for _, e := range entries {
		e.Time = e.Time.UTC()
		name := FileName(e.Time)
		buf, ok := lines[name]
		if !ok {
			buf = &bytes.Buffer{}
			lines[name] = buf
			days = append(days, name)
		}
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e); err != nil { // Encode ends the line with \n
			return fmt.Errorf("encode audit entry: %w", err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var undo []func() error
	for _, name := range days {
		u, err := l.appendFile(filepath.Join(l.dir, name), lines[name].Bytes())
		if err != nil {
			for _, u := range undo {
				if uerr := u(); uerr != nil {
					err = errors.Join(err, fmt.Errorf("undo append: %w", uerr))
				}
			}
			return fmt.Errorf("append %d audit entries: %w", len(entries), err)
		}
		undo = append(undo, u)
	}
	return nil
}

// appendFile appends data as one write and fsyncs it, starting a new line
// first when the file ends in a torn one (a crash mid-append): the torn
// bytes stay for forensics and are skipped by reads. It returns how to cut
// the file back to where it was.
func (l *Log) appendFile(path string, data []byte) (func() error, error) {
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	size := fi.Size()
	cut := func() error { return os.Truncate(path, size) }
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return nil, fmt.Errorf("read the end of %s: %w", path, err)
		}
		if last[0] != '\n' {
			l.log.Warn("audit log ends in a torn line, starting a new one", "path", path)
			data = append([]byte{'\n'}, data...)
		}
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil && created {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		if terr := f.Truncate(size); terr != nil {
			err = errors.Join(err, fmt.Errorf("undo partial append: %w", terr))
		}
		return nil, fmt.Errorf("append to %s: %w", path, err)
	}
	return cut, nil
}

// syncDir makes a new file's directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
