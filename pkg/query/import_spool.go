package query

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
)

// DefaultImportMemoryBytes is how much of an import body (counted as
// its lines' bytes) the server keeps in memory, decoded, while it
// validates the body; the rest waits in a temporary file (see
// SetImportSpool). It is the size of the parts `recollect import` sends,
// which thus never touch the disk.
const DefaultImportMemoryBytes = 8 << 20

// spoolConfig is where an import body waits between validation and
// writing.
type spoolConfig struct {
	dir      string // "" = os.TempDir()
	memBytes int    // DefaultImportMemoryBytes when not positive
}

// SetImportSpool sets where POST /v1/import keeps the records it has
// validated until the whole body is known good: those of the first
// memBytes of lines (DefaultImportMemoryBytes when not positive) in
// memory, the rest as lines in a temporary file in dir (os.TempDir() when
// empty), removed when the request ends. The server's memory per import
// is thus bounded by memBytes and one batch, whatever the body's size.
func (q *Query) SetImportSpool(dir string, memBytes int) {
	q.spool = spoolConfig{dir: dir, memBytes: memBytes}
}

// spoolPattern names an import spool file; see RemoveStaleImportSpools.
const spoolPattern = "recollect-import-*.ndjson"

// RemoveStaleImportSpools removes from dir the import spool files last
// written before cutoff: left by a process that died mid-import (a live
// import rewrites its file within seconds; requests are bounded by
// MaxImportBytes). It returns how many it removed.
func RemoveStaleImportSpools(dir string, cutoff time.Time) (int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, spoolPattern))
	if err != nil {
		return 0, fmt.Errorf("list import spools in %s: %w", dir, err)
	}
	n := 0
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("remove stale import spool %s: %w", p, err)
		}
		n++
	}
	return n, nil
}

// spool holds the validated records of one import body: decoded in memory
// up to its limit, then as lines in a temporary file.
type spool struct {
	cfg   spoolConfig
	mems  []memory.Memory // while in memory
	bytes int             // the lines of mems
	total int             // the lines of every record
	file  *os.File
	w     *bufio.Writer
}

func newSpool(cfg spoolConfig) *spool {
	if cfg.memBytes <= 0 {
		cfg.memBytes = DefaultImportMemoryBytes
	}
	return &spool{cfg: cfg}
}

// add appends a prepared record and its line.
func (s *spool) add(m memory.Memory, line []byte) error {
	s.total += len(line) + 1
	if s.w == nil && s.bytes+len(line)+1 > s.cfg.memBytes {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if s.w == nil {
		s.mems = append(s.mems, m)
		s.bytes += len(line) + 1
		return nil
	}
	s.w.Write(line)
	if err := s.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("spool import body to %s: %w", s.file.Name(), err)
	}
	return nil
}

// spill moves the records in memory, as lines, to a new temporary file,
// which takes every later line.
func (s *spool) spill() error {
	f, err := os.CreateTemp(s.cfg.dir, spoolPattern)
	if err != nil {
		return fmt.Errorf("spool import body: %w", err)
	}
	s.file = f
	s.w = bufio.NewWriterSize(f, 64<<10)
	for _, m := range s.mems {
		line, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("spool import record %s: %w", m.ID, err)
		}
		s.w.Write(line)
		if err := s.w.WriteByte('\n'); err != nil {
			return fmt.Errorf("spool import body to %s: %w", f.Name(), err)
		}
	}
	s.mems, s.bytes = nil, 0
	return nil
}

// each calls fn with every record in order: from memory, or read back
// from the file and prepared again with the same rules (which cannot fail
// unless the domain registry changed since the validation).
func (s *spool) each(tenant string, rules snapshot.Rules, fn func(memory.Memory) error) error {
	if s.file == nil {
		for _, m := range s.mems {
			if err := fn(m); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool import body to %s: %w", s.file.Name(), err)
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reread spooled import body %s: %w", s.file.Name(), err)
	}
	rd := snapshot.NewReader(s.file, snapshot.MaxLineBytes)
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			err = snapshot.Prepare(&m, tenant, rd.Line(), rules)
		}
		if err != nil {
			return fmt.Errorf("reread validated import record %d: %w", rd.Line(), err)
		}
		if err := fn(m); err != nil {
			return err
		}
	}
}

// releaseMinBytes is the smallest import after which the memory it freed
// is returned to the operating system (a spilled one always is).
const releaseMinBytes = 1 << 20

// large reports whether the body is worth a release.
func (s *spool) large() bool { return s.file != nil || s.total >= releaseMinBytes }

// close removes the temporary file, if any.
func (s *spool) close() error {
	if s.file == nil {
		return nil
	}
	name := s.file.Name()
	return errors.Join(s.file.Close(), os.Remove(name))
}
