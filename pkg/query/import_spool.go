package query

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultImportMemoryBytes is how much of an import body the server keeps
// in memory while it validates the body; the rest waits in a temporary
// file (see SetImportSpool).
const DefaultImportMemoryBytes = 1 << 20

// spoolConfig is where an import body waits between validation and
// writing.
type spoolConfig struct {
	dir      string // "" = os.TempDir()
	memBytes int    // DefaultImportMemoryBytes when not positive
}

// SetImportSpool sets where POST /v1/import keeps the lines it has
// validated until the whole body is known good: the first memBytes
// (DefaultImportMemoryBytes when not positive) in memory, the rest in a
// temporary file in dir (os.TempDir() when empty), removed when the
// request ends. The server's memory per import is thus bounded by
// memBytes, one line and one batch, whatever the body's size.
func (q *Query) SetImportSpool(dir string, memBytes int) {
	q.spool = spoolConfig{dir: dir, memBytes: memBytes}
}

// spool holds the validated lines of one import body: in memory up to its
// limit, then in a temporary file.
type spool struct {
	cfg  spoolConfig
	mem  bytes.Buffer
	file *os.File
	w    *bufio.Writer
}

func newSpool(cfg spoolConfig) *spool {
	if cfg.memBytes <= 0 {
		cfg.memBytes = DefaultImportMemoryBytes
	}
	return &spool{cfg: cfg}
}

// add appends one line (a newline is added).
func (s *spool) add(line []byte) error {
	if s.w == nil && s.mem.Len()+len(line)+1 > s.cfg.memBytes {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if s.w == nil {
		s.mem.Write(line)
		s.mem.WriteByte('\n')
		return nil
	}
	s.w.Write(line)
	if err := s.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("spool import body to %s: %w", s.file.Name(), err)
	}
	return nil
}

// spill moves what is in memory to a new temporary file, which takes
// every later line.
func (s *spool) spill() error {
	f, err := os.CreateTemp(s.cfg.dir, "recollect-import-*.ndjson")
	if err != nil {
		return fmt.Errorf("spool import body: %w", err)
	}
	s.file = f
	if _, err := f.Write(s.mem.Bytes()); err != nil {
		return fmt.Errorf("spool import body to %s: %w", f.Name(), err)
	}
	s.mem = bytes.Buffer{}
	s.w = bufio.NewWriterSize(f, 64<<10)
	return nil
}

// reader reads the spooled lines back from the start; no line may be
// added after it.
func (s *spool) reader() (io.Reader, error) {
	if s.file == nil {
		return &s.mem, nil
	}
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("spool import body to %s: %w", s.file.Name(), err)
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reread spooled import body %s: %w", s.file.Name(), err)
	}
	return s.file, nil
}

// close removes the temporary file, if any.
func (s *spool) close() error {
	if s.file == nil {
		return nil
	}
	name := s.file.Name()
	return errors.Join(s.file.Close(), os.Remove(name))
}
