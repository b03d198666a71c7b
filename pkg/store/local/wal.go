package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/recollect-dev/recollect/pkg/store"
)

// errNoSpace marks an append refused on a full disk that left the log
// unchanged: the store keeps taking writes.
var errNoSpace = errors.New("disk full")

// wal is the log being appended to. Appends are serialised by the store's
// write lock; sync implements group commit: whoever finds no fsync running
// starts one covering everything appended so far, and the others wait for it.
type wal struct {
	f    *os.File
	path string
	seq  uint64
	size atomic.Int64 // bytes appended, header included

	mu      sync.Mutex
	cond    *sync.Cond
	synced  int64 // bytes known durable
	syncing bool
	err     error // sticky: after a failed write or fsync nothing is trusted
}

func newWAL(f *os.File, path string, seq uint64, size int64) *wal {
	w := &wal{f: f, path: path, seq: seq, synced: size}
	w.cond = sync.NewCond(&w.mu)
	w.size.Store(size)
	return w
}

// createWAL starts an empty log numbered seq, durable (header and directory
// entry) before it is used.
func createWAL(dir string, seq uint64) (*wal, error) {
	path := walPath(dir, seq)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create wal %s: %w", path, err)
	}
	if _, err := f.Write([]byte(walMagic)); err != nil {
		f.Close()
		return nil, fmt.Errorf("write wal header %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("sync wal %s: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return newWAL(f, path, seq, magicLen), nil
}

// openWAL reopens an existing, already validated log for appending.
func openWAL(dir string, seq uint64, size int64) (*wal, error) {
	path := walPath(dir, seq)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open wal %s: %w", path, err)
	}
	return newWAL(f, path, seq, size), nil
}

// append writes one frame and returns the offset just past it. The caller
// holds the store's write lock.
func (w *wal) append(frame []byte) (int64, error) {
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if _, err := w.f.Write(frame); err != nil {
		err = fmt.Errorf("append wal %s: %w", w.path, err)
		// A full disk: cutting the partial frame off leaves the log as it
		// was, so the write is refused (retryable) and the next one may
		// succeed once space returns.
		if errors.Is(err, syscall.ENOSPC) && w.f.Truncate(w.size.Load()) == nil {
			return 0, fmt.Errorf("%w: %w: %w", store.ErrUnavailable, errNoSpace, err)
		}
		// A partial frame may sit at the tail now; appending after it would
		// hide later records from replay, so the log takes no more writes.
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
		return 0, err
	}
	return w.size.Add(int64(len(frame))), nil
}

// sync returns once the first end bytes are durable.
func (w *wal) sync(end int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.synced < end {
		if w.err != nil {
			return w.err
		}
		if w.syncing {
			w.cond.Wait()
			continue
		}
		w.syncing = true
		target := w.size.Load()
		w.mu.Unlock()
		err := w.f.Sync()
		w.mu.Lock()
		w.syncing = false
		if err != nil {
			w.err = fmt.Errorf("sync wal %s: %w", w.path, err)
		} else if target > w.synced {
			w.synced = target
		}
		w.cond.Broadcast()
	}
	return nil
}

// close makes everything appended durable and closes the file; waiters
// still in sync find their bytes covered and return.
func (w *wal) close() error {
	serr := w.sync(w.size.Load())
	cerr := w.f.Close()
	if serr != nil {
		return serr
	}
	if cerr != nil {
		return fmt.Errorf("close wal %s: %w", w.path, cerr)
	}
	return nil
}
