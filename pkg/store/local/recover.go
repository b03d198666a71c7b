package local

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// recover rebuilds the state from the newest snapshot and the logs after it,
// cuts off a torn log tail, removes leftovers of interrupted compactions and
// opens the newest log for appending.
func (s *Store) recover() error {
	df, err := listDir(s.dir)
	if err != nil {
		return err
	}
	for _, tmp := range df.tmps {
		if err := os.Remove(tmp); err != nil {
			return fmt.Errorf("remove unfinished snapshot %s: %w", tmp, err)
		}
	}
	s.loadIndexFile()
	var base uint64 = 1
	if n := len(df.snaps); n > 0 {
		base = df.snaps[n-1]
		if err := readSnapshot(snapPath(s.dir, base), s.replay); err != nil {
			return err
		}
		s.attachIndexes(logPos{seq: base, off: magicLen})
	}
	// Files older than the snapshot remain when a crash hit after its rename.
	if err := removeBelow(s.dir, base); err != nil {
		return err
	}
	var wals []uint64
	for _, seq := range df.wals {
		if seq >= base {
			wals = append(wals, seq)
		}
	}
	if len(wals) == 0 {
		s.wal, err = createWAL(s.dir, base)
		return err
	}
	var size int64
	for _, seq := range wals {
		if size, err = s.replayWAL(seq); err != nil {
			return err
		}
	}
	last := wals[len(wals)-1]
	if size < magicLen {
		s.wal, err = createWAL(s.dir, last)
		return err
	}
	s.wal, err = openWAL(s.dir, last, size)
	return err
}

// replayWAL applies a log's whole frames and returns its valid length,
// truncating anything after the last whole frame.
func (s *Store) replayWAL(seq uint64) (int64, error) {
	path := walPath(s.dir, seq)
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open wal %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat wal %s: %w", path, err)
	}
	var magic [magicLen]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil || string(magic[:]) != walMagic {
		if !tornHeader(magic[:n]) {
			return 0, fmt.Errorf("open wal %s: not a recollect log (bad header)", path)
		}
		// Created but its header never reached the disk: an empty log.
		s.log.Warn("local store log header torn, starting it empty", "path", path, "bytes", st.Size(), "header_bytes", n)
		return 0, nil
	}
	s.attachIndexes(logPos{seq: seq, off: magicLen})
	next, stop := decodeAhead(newFrameReader(f, magicLen, st.Size()))
	defer stop()
	records := 0
	for {
		d := next()
		if errors.Is(d.err, io.EOF) {
			return d.off, nil
		}
		if errors.Is(d.err, errTorn) {
			s.log.Warn("local store log tail torn or corrupt, truncating it",
				"path", path, "offset", d.off, "dropped_bytes", st.Size()-d.off, "frames_replayed", records)
			if err := truncate(path, d.off); err != nil {
				return 0, err
			}
			return d.off, nil
		}
		if d.err != nil {
			return 0, fmt.Errorf("read wal %s at offset %d: %w", path, d.off, d.err)
		}
		if d.decodeErr != nil {
			// The checksum held, so these are our bytes in a form we cannot
			// read: cutting them off would lose acknowledged data.
			return 0, fmt.Errorf("decode wal %s at offset %d: %w", path, d.off, d.decodeErr)
		}
		if d.o.kind != opUpsert && d.o.kind != opPayload && d.o.kind != opDelete {
			return 0, fmt.Errorf("decode wal %s at offset %d: unexpected payload kind %d", path, d.off, d.o.kind)
		}
		if err := s.replay(d.o, d.lex); err != nil {
			return 0, fmt.Errorf("apply wal %s at offset %d: %w", path, d.off, err)
		}
		s.attachIndexes(logPos{seq: seq, off: d.off}) // d.off is where the frame ends
		records++
	}
}

// replay applies one decoded batch (with the lexical vectors of its
// memories) during recovery, when nothing else runs.
func (s *Store) replay(o op, lex []lexical.SparseVector) error {
	switch o.kind {
	case opUpsert:
		for i, m := range o.mems {
			p := s.partitionForWrite(m.Tenant)
			if err := checkDim(m.Tenant, m.ID, p.dim, len(m.Vector)); err != nil {
				// Writes are checked before they are logged; skip rather
				// than corrupt the slab if that ever failed.
				s.log.Error("local store skipped a logged memory", "tenant", m.Tenant, "id", m.ID, "err", err)
				continue
			}
			delta, err := p.upsert(m, o.sizes[i], lex[i])
			if err != nil {
				return fmt.Errorf("store memory %s of tenant %s: %w", m.ID, m.Tenant, err)
			}
			s.liveBytes += int64(delta)
		}
	case opPayload:
		// Logged only for memories held at the time, which the replay up
		// to here has rebuilt: one not held is skipped, as it was then.
		for i, m := range o.mems {
			p := s.partition(m.Tenant)
			if p == nil {
				continue
			}
			if row, ok := p.row(m.ID); ok {
				delta, err := p.setPayload(row, m, o.sizes[i])
				if err != nil {
					return fmt.Errorf("store memory %s of tenant %s: %w", m.ID, m.Tenant, err)
				}
				s.liveBytes += int64(delta)
			}
		}
	case opDelete:
		if p := s.partition(o.tenant); p != nil {
			for _, id := range o.ids {
				delta, err := p.remove(id)
				if err != nil {
					return fmt.Errorf("remove memory %s of tenant %s: %w", id, o.tenant, err)
				}
				s.liveBytes += int64(delta)
			}
		}
	}
	return nil
}

func truncate(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open wal %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("truncate wal %s to %d bytes: %w", path, size, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync wal %s: %w", path, err)
	}
	return nil
}

// tornHeader reports whether b could be our header cut short by a crash:
// each byte is either what we write there or still zero.
func tornHeader(b []byte) bool {
	for i, c := range b {
		if c != 0 && c != walMagic[i] {
			return false
		}
	}
	return true
}
