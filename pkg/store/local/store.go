// Package local is the zero-setup memory store: a single-process engine in a
// data directory. Writes go to an append-only, checksummed log that is
// fsynced (with group commit) before they are acknowledged; the log is
// compacted into snapshots; reads are served from memory. Dense search is
// an exact cosine scan of the tenant's contiguous vector slab, or, once the
// rows a query may return exceed a threshold, an int8 scan that keeps a
// generous candidate set and re-scores it exactly.
package local

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recollect-dev/recollect/pkg/store"
)

// Store is the local engine. It implements store.Store.
type Store struct {
	dir    string
	cfg    Config
	log    *slog.Logger
	lock   *os.File
	closed atomic.Bool
	opts   options

	// writeMu orders log appends, so that the in-memory state is applied in
	// log order and matches what a replay rebuilds.
	writeMu    sync.Mutex
	wal        *wal
	liveBytes  int64 // encoded size of live records
	failed     error // sticky: a failed append or rotation stops writes
	compacting bool
	compactWG  sync.WaitGroup

	compactions, compactionFailures atomic.Uint64
	appended                        atomic.Uint64 // bytes appended to logs since Open

	mu    sync.RWMutex // guards parts (the map, not the partitions)
	parts map[string]*partition

	// vecCache maps big partitions' vectors from files (vecfile.go).
	// Close unmaps them after setting closed, under each partition's
	// write lock, so a reader checks closed once it holds the read lock
	// (rlock).
	vecCache *vecCache

	accPool     sync.Pool // *[]float32 score accumulators for SearchText
	touchedPool sync.Pool // *[]uint32 document lists of sparse text scorings
	rowsPool    sync.Pool // *[]int32 candidate row lists for Search

	// Background index training (ivf_train.go): bgCtx is cancelled by
	// Close, which then waits for ivfWG.
	bgCtx        context.Context
	bgCancel     context.CancelFunc
	ivfWG        sync.WaitGroup
	recovering   bool          // no training starts while Open replays
	ivfTrainings atomic.Uint64 // indexes trained since Open
	ivfChanged   atomic.Bool   // an index was trained since the index file was written or read
	ivfSaved     *ivfFile      // read by recover, attached where the replay reaches its position
	ivfPos       logPos        // position of the index file read or last written
}

var (
	_ store.Store        = (*Store)(nil)
	_ store.MetaScroller = (*Store)(nil)
)

// Open opens or creates the store in dir, replaying its snapshot and log. A
// torn or corrupt log tail (a crash mid-write) is cut off and logged.
func Open(dir string, opts ...Option) (*Store, error) {
	o := options{cfg: DefaultConfig(), searchChunk: defaultSearchChunk, now: time.Now, vecReserve: defaultVecReserve}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.cfg.Validate(); err != nil {
		return nil, fmt.Errorf("local store config: %w", err)
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create store dir %s: %w", dir, err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, cfg: o.cfg, log: o.log, lock: lock, opts: o, parts: make(map[string]*partition)}
	s.vecCache = openVecCache(dir, o.log, o.vecReserve)
	s.bgCtx, s.bgCancel = context.WithCancel(context.Background())
	s.recovering = true
	if err := s.recover(); err != nil {
		s.bgCancel()
		s.releaseVectors()
		lock.Close()
		return nil, err
	}
	s.writeMu.Lock()
	s.recovering = false
	s.indexAfterRecovery()
	s.maybeCompact()
	s.writeMu.Unlock()
	s.dropVectorPages()
	return s, nil
}

// Close waits for a running compaction, makes the log durable and closes
// it. Every later call returns store.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return store.ErrClosed
	}
	// Once a writer holding writeMu has seen closed, none starts compacting.
	s.writeMu.Lock()
	s.writeMu.Unlock()
	s.compactWG.Wait()
	s.bgCancel()
	s.ivfWG.Wait()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	err := s.wal.close()
	if err == nil {
		s.saveIndexes(logPos{seq: s.wal.seq, off: s.wal.size.Load()}, false)
	}
	s.releaseVectors()
	if cerr := s.lock.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("release store lock: %w", cerr)
	}
	return err
}

// partition returns the tenant's partition, or nil.
func (s *Store) partition(tenant string) *partition {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.parts[tenant]
}

// partitionForWrite returns the tenant's partition, creating it. The caller
// holds writeMu.
func (s *Store) partitionForWrite(tenant string) *partition {
	if p := s.partition(tenant); p != nil {
		return p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := newPartition(s.cfg.ApproxMinRows, s.cfg.IndexMinRows)
	p.vecCache = s.vecCache
	s.parts[tenant] = p
	return p
}

func (s *Store) now() time.Time { return s.opts.now() }

// rlock takes p's read lock and reports true, or false (holding nothing)
// when the store has closed: Close may have unmapped p's vectors.
func (s *Store) rlock(p *partition) bool {
	p.mu.RLock()
	if s.closed.Load() {
		p.mu.RUnlock()
		return false
	}
	return true
}

// dropVectorPages takes the mapped vectors out of the resident set once
// the replay has written them (and the int8 copies' builds and the index
// attachment have read them).
func (s *Store) dropVectorPages() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range s.parts {
		p.mu.RLock()
		p.vecs.dropPages()
		p.mu.RUnlock()
	}
}

// releaseVectors unmaps every partition's vectors and removes the cache.
// Nothing may read them afterwards: Close has set closed first (rlock),
// and a failed Open hands out no store.
func (s *Store) releaseVectors() {
	s.mu.RLock()
	for _, p := range s.parts {
		p.mu.Lock()
		p.vecs.release()
		p.mu.Unlock()
	}
	s.mu.RUnlock()
	s.vecCache.close()
}
