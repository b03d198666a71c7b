package usage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Spool file names: spool-<seq>.jsonl, seq in decimal, zero-padded so that
// names sort in order.
const (
	spoolPrefix = "spool-"
	spoolSuffix = ".jsonl"
	spoolLock   = "LOCK"
	// maxSpoolDirs bounds the processes that may share one data dir.
	maxSpoolDirs = 64
)

// spool keeps every queued record on disk until the backend has it, so that
// a process killed with kill -9 loses nothing it recorded: the next start
// replays the spool. Each record is appended with one write(2), which the
// kernel keeps through kill -9; the loop fsyncs in groups, so a power
// failure loses at most one flush interval. The spool is a chain of
// segments; a segment is removed once every record in it was written, and
// the active one is emptied in place when the queue drains.
//
// The caller (Buffered) holds its mutex around every method.
type spool struct {
	dir    string
	maxSeg int
	log    *slog.Logger
	lock   *os.File // held while the spool is open

	f     *os.File // the active segment, opened for appending
	size  int64    // bytes of whole lines in f, to undo a partial append
	segs  []segment
	dirty bool // appended since the last sync
}

// segment counts the records of one file still waiting for the backend;
// the last one is the active file.
type segment struct {
	seq   uint64
	left  int // records not yet written
	total int // records appended to it
}

// replayed is what openSpool found from an earlier run.
type replayed struct {
	records []Record
	torn    int // lines cut by a crash mid-append or undecodable: lost
}

// openSpool locks dir, reads the records an earlier run left there and
// starts a fresh active segment after them. When another live process
// holds dir (processes on one host sharing a data dir), the first free of
// dir-2, dir-3, ... is used instead.
func openSpool(dir string, maxSeg int, log *slog.Logger) (*spool, replayed, error) {
	var found replayed
	lock, dir, err := lockSpoolDir(dir)
	if err != nil {
		return nil, found, err
	}
	seqs, err := spoolSeqs(dir)
	if err != nil {
		lock.Close()
		return nil, found, err
	}
	s := &spool{dir: dir, maxSeg: max(1, maxSeg), log: log, lock: lock}
	ok := false
	defer func() {
		if !ok {
			lock.Close()
		}
	}()
	var last uint64
	for _, seq := range seqs {
		last = seq
		recs, torn, err := readSegment(s.path(seq))
		if err != nil {
			return nil, found, err
		}
		found.torn += torn
		if len(recs) == 0 {
			if err := os.Remove(s.path(seq)); err != nil {
				return nil, found, fmt.Errorf("remove empty usage spool segment: %w", err)
			}
			continue
		}
		found.records = append(found.records, recs...)
		s.segs = append(s.segs, segment{seq: seq, left: len(recs), total: len(recs)})
	}
	if err := s.startSegment(last + 1); err != nil {
		return nil, found, err
	}
	ok = true
	return s, found, nil
}

// lockSpoolDir creates and locks the first of dir, dir-2, dir-3, ... that
// no live process holds.
func lockSpoolDir(dir string) (*os.File, string, error) {
	for i := 1; i <= maxSpoolDirs; i++ {
		d := dir
		if i > 1 {
			d = fmt.Sprintf("%s-%d", dir, i)
		}
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, "", fmt.Errorf("create usage spool dir %s: %w", d, err)
		}
		f, err := os.OpenFile(filepath.Join(d, spoolLock), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, "", fmt.Errorf("open usage spool lock in %s: %w", d, err)
		}
		if tryLock(f) {
			return f, d, nil
		}
		f.Close()
	}
	return nil, "", fmt.Errorf("usage spool %s: %d processes already use this data dir", dir, maxSpoolDirs)
}

func spoolSeqs(dir string) ([]uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list usage spool %s: %w", dir, err)
	}
	var seqs []uint64
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, spoolPrefix) || !strings.HasSuffix(name, spoolSuffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, spoolPrefix), spoolSuffix), 10, 64)
		if err != nil {
			continue // not ours
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// readSegment decodes one segment file. A last line without a newline (a
// kill mid-append) and undecodable lines are counted as torn.
func readSegment(path string) ([]Record, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("open usage spool segment: %w", err)
	}
	defer f.Close()
	var (
		recs []Record
		torn int
		rd   = bufio.NewReader(f)
	)
	for {
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				torn++
			}
			return recs, torn, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read usage spool segment %s: %w", path, err)
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.ID == "" {
			torn++
			continue
		}
		recs = append(recs, r)
	}
}

func (s *spool) path(seq uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%s%020d%s", spoolPrefix, seq, spoolSuffix))
}

// startSegment makes seq the active segment; the previous one is synced
// and closed but kept until its records are written.
func (s *spool) startSegment(seq uint64) error {
	f, err := os.OpenFile(s.path(seq), os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create usage spool segment: %w", err)
	}
	if s.f != nil {
		err := s.f.Sync()
		err = errors.Join(err, s.f.Close())
		if err != nil {
			_ = f.Close()
			_ = os.Remove(s.path(seq))
			return fmt.Errorf("close usage spool segment: %w", err)
		}
	}
	s.f, s.size, s.dirty = f, 0, false
	s.segs = append(s.segs, segment{seq: seq})
	return nil
}

func (s *spool) active() *segment { return &s.segs[len(s.segs)-1] }

// append adds one encoded record (ending in a newline). On failure (disk
// full) the file is cut back, so the record is not in the spool and the
// next line starts clean.
func (s *spool) append(line []byte) error {
	if s.active().total >= s.maxSeg {
		if err := s.startSegment(s.active().seq + 1); err != nil {
			return err
		}
	}
	if _, err := s.f.Write(line); err != nil {
		if terr := s.f.Truncate(s.size); terr != nil {
			err = errors.Join(err, fmt.Errorf("undo partial append: %w", terr))
		}
		return fmt.Errorf("append to usage spool %s: %w", s.dir, err)
	}
	s.size += int64(len(line))
	a := s.active()
	a.left++
	a.total++
	s.dirty = true
	return nil
}

// sync makes the appended records survive a power failure.
func (s *spool) sync() error {
	if !s.dirty {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync usage spool %s: %w", s.dir, err)
	}
	s.dirty = false
	return nil
}

// release marks the n oldest spooled records as written: segments left
// with none are removed, and the active one is emptied in place. A failure
// only leaves records that a later start replays; the backend counts a
// replayed record once by its ID.
func (s *spool) release(n int) {
	for n > 0 && len(s.segs) > 0 {
		seg := &s.segs[0]
		k := min(n, seg.left)
		seg.left -= k
		n -= k
		if seg.left > 0 {
			return
		}
		if len(s.segs) == 1 {
			s.emptyActive()
			return
		}
		if err := os.Remove(s.path(seg.seq)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("usage spool: cannot remove a written segment; its records are replayed once more at the next start",
				"path", s.path(seg.seq), "err", err)
		}
		s.segs = s.segs[1:]
	}
}

// emptyActive truncates the active segment once all its records are
// written.
func (s *spool) emptyActive() {
	a := s.active()
	if a.total == 0 {
		return
	}
	if err := s.f.Truncate(0); err != nil {
		s.log.Warn("usage spool: cannot empty the written segment; it grows until the next start",
			"path", s.path(a.seq), "err", err)
		return
	}
	s.size, a.total, s.dirty = 0, 0, true
}

// pending is how many records the spool holds for the backend.
func (s *spool) pending() int {
	n := 0
	for _, seg := range s.segs {
		n += seg.left
	}
	return n
}

// close syncs and closes the active segment; what it holds stays for the
// next start.
func (s *spool) close() error {
	err := s.sync()
	if cerr := s.f.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close usage spool: %w", cerr))
	}
	if s.active().total == 0 {
		_ = os.Remove(s.path(s.active().seq))
	}
	if cerr := s.lock.Close(); cerr != nil { // releases the lock
		err = errors.Join(err, fmt.Errorf("release usage spool lock: %w", cerr))
	}
	return err
}
