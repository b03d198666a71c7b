// Package jsonl is the usage backend of the single-process mode: one JSON
// object per line in <data dir>/usage.jsonl, appended and fsynced per
// batch, and summed by scanning the file.
package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// FileName is the log's name inside its directory.
const FileName = "usage.jsonl"

// ErrClosed is returned by a Log after Close.
var ErrClosed = errors.New("usage log closed")

// Log appends usage records to a file. One process writes a given file:
// Open repairs a torn last line, which would race with another writer.
type Log struct {
	path string
	log  *slog.Logger

	mu   sync.Mutex
	f    *os.File // nil once closed
	size int64    // bytes of whole lines, to undo a failed append
}

var (
	_ usage.Writer = (*Log)(nil)
	_ usage.Reader = (*Log)(nil)
)

// Option tunes a Log.
type Option func(*Log)

// WithLogger sets where repairs and undecodable lines are reported.
func WithLogger(l *slog.Logger) Option {
	return func(lg *Log) {
		if l != nil {
			lg.log = l
		}
	}
}

// Open creates dir if needed and opens dir/usage.jsonl for appending.
func Open(dir string, opts ...Option) (*Log, error) {
	l := &Log{path: filepath.Join(dir, FileName), log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(l)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("create usage log dir %s: %w", dir, err)
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open usage log %s: %w", l.path, err)
	}
	size, err := repairTail(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("repair usage log %s: %w", l.path, err)
	}
	l.f, l.size = f, size
	return l, nil
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// Write appends records as one write and fsyncs it. On failure the file is
// cut back to where it was, so a retried batch is not stored twice.
func (l *Log) Write(ctx context.Context, records []usage.Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append %d usage records: %w", len(records), err)
	}
	if len(records) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range records {
		if err := enc.Encode(r); err != nil { // Encode ends each line with \n
			return fmt.Errorf("encode usage record: %w", err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ErrClosed
	}
	_, err := l.f.Write(buf.Bytes())
	if err == nil {
		err = l.f.Sync()
	}
	if err != nil {
		if terr := l.f.Truncate(l.size); terr != nil {
			err = errors.Join(err, fmt.Errorf("undo partial append: %w", terr))
		}
		return fmt.Errorf("append %d usage records to %s: %w", len(records), l.path, err)
	}
	l.size += int64(buf.Len())
	return nil
}

// Close closes the file; later writes fail with ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("close usage log %s: %w", l.path, err)
	}
	return nil
}

// repairTail cuts a last line that has no newline (a crash mid-append) so
// the next append starts on a line of its own, and returns the new size.
func repairTail(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	end, err := lastNewline(f, size)
	if err != nil {
		return 0, err
	}
	if end == size {
		return size, nil
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	return end, f.Sync()
}

// lastNewline returns the offset just past the last '\n' before size (0 if
// there is none), reading backwards in blocks.
func lastNewline(f *os.File, size int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, block)
	for end := size; end > 0; {
		start := max(0, end-block)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
