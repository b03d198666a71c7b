package local

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// maybeCompact starts a background compaction once the log is big both in
// absolute terms and relative to the live data. The caller holds writeMu.
func (s *Store) maybeCompact() {
	if s.compacting || s.closed.Load() || s.failed != nil {
		return
	}
	size := s.wal.size.Load()
	if size < s.cfg.CompactMinBytes || float64(size) < s.cfg.CompactRatio*float64(s.liveBytes) {
		return
	}
	s.compacting = true
	s.compactWG.Add(1)
	go func() {
		defer s.compactWG.Done()
		_ = s.compact() // counted and logged
	}()
}

// compactPoll is how often Compact looks whether a running compaction
// finished.
const compactPoll = 20 * time.Millisecond

// Compact rewrites the store's files now and waits for it: a new snapshot
// of exactly the live records, and every older log and snapshot removed,
// so the bytes of deleted memories are no longer in any file (an erasure
// needs this; tombstones alone leave them in the log). A compaction
// already running is waited for first, since it may have copied the
// state before the deletions.
func (s *Store) Compact(ctx context.Context) error {
	for {
		s.writeMu.Lock()
		switch {
		case s.closed.Load():
			s.writeMu.Unlock()
			return errors.New("compact local store: closed")
		case s.failed != nil:
			err := s.failed
			s.writeMu.Unlock()
			return fmt.Errorf("compact local store: %w", err)
		case !s.compacting:
			s.compacting = true
			s.compactWG.Add(1)
			s.writeMu.Unlock()
			defer s.compactWG.Done()
			return s.compact()
		}
		s.writeMu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("compact local store: %w", ctx.Err())
		case <-time.After(compactPoll):
		}
	}
}

// compact switches writes to a new log N+1, copies the state (which is
// exactly what the older logs hold), writes it as snapshot N+1 and then
// deletes the files it replaces. Writers wait only for the switch and copy.
func (s *Store) compact() error {
	defer func() {
		s.writeMu.Lock()
		s.compacting = false
		s.writeMu.Unlock()
	}()
	start := time.Now()
	s.writeMu.Lock()
	if s.closed.Load() || s.failed != nil {
		s.writeMu.Unlock()
		return errors.New("store closed or failed")
	}
	old := s.wal
	next, err := createWAL(s.dir, old.seq+1)
	if err != nil {
		s.writeMu.Unlock()
		s.compactionFailures.Add(1)
		s.log.Warn("local store compaction not started", "dir", s.dir, "err", err)
		return fmt.Errorf("start a new log: %w", err)
	}
	s.wal = next
	if err := old.close(); err != nil {
		// What the old log holds may not be on disk, so nothing acknowledged
		// from now on could be trusted either.
		s.failed = err
		s.writeMu.Unlock()
		s.compactionFailures.Add(1)
		s.log.Error("local store log lost durability", "dir", s.dir, "err", err)
		return fmt.Errorf("close the old log: %w", err)
	}
	recs := s.copyState()
	indexes := s.captureIndexes()
	s.writeMu.Unlock()
	s.hook("rotated")

	if err := writeSnapshot(s.dir, next.seq, recs, s.hook); err != nil {
		s.compactionFailures.Add(1)
		s.log.Warn("local store snapshot not written, the logs still hold everything", "dir", s.dir, "err", err)
		return fmt.Errorf("write snapshot: %w", err)
	}
	if len(indexes) > 0 {
		s.writeMu.Lock() // ivfPos is the writers'
		s.writeIndexes(ivfFile{pos: logPos{seq: next.seq, off: magicLen}, tenants: indexes})
		s.writeMu.Unlock()
	}
	if err := removeBelow(s.dir, next.seq); err != nil {
		s.compactionFailures.Add(1)
		s.log.Warn("local store old files not removed", "dir", s.dir, "err", err)
		return fmt.Errorf("remove old files: %w", err)
	}
	s.compactions.Add(1)
	s.hook("cleaned")
	s.log.Info("local store compacted", "dir", s.dir, "records", len(recs), "duration", time.Since(start))
	return nil
}

// copyState returns every record, encoded, with its vectors. The slices
// alias no live state, so the snapshot can be written without locks.
// Caller holds writeMu.
func (s *Store) copyState() []snapRec {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var recs []snapRec
	for _, p := range s.parts {
		p.mu.RLock()
		slab := p.vecs.appendTo(make([]float32, 0, p.vecs.n*p.dim))
		p.vecs.dropPages()
		buf := make([]byte, 0, p.arena.live) // live counts headers too: no regrowth
		for i := range p.recs {
			at := len(buf)
			buf = append(buf, p.record(i)...)
			r := snapRec{rec: buf[at:len(buf):len(buf)]}
			if p.hasVec[i] {
				r.vec = slab[i*p.dim : (i+1)*p.dim : (i+1)*p.dim]
			}
			// Aliased, not copied: a row's chunk vectors are replaced,
			// never changed in place.
			r.chunks = p.chunkVectors(i, false)
			recs = append(recs, r)
		}
		p.mu.RUnlock()
	}
	return recs
}

func (s *Store) hook(step string) {
	if s.opts.compactHook != nil {
		s.opts.compactHook(step)
	}
}
