package local

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// snapshotBatch is how many records go into one snapshot frame.
const snapshotBatch = 512

// snapRec is a memory as a snapshot writes it: its binary encoding
// (recordbin.go), its vector and chunk vectors.
type snapRec struct {
	rec    []byte
	vec    []float32
	chunks [][]float32
}

// writeSnapshot writes recs as snapshot seq: to a temporary file, fsynced,
// renamed into place, directory fsynced. A crash at any point leaves
// either no snapshot seq or a whole one.
func writeSnapshot(dir string, seq uint64, recs []snapRec, hook func(string)) error {
	path := snapPath(dir, seq)
	tmp := path + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create snapshot %s: %w", tmp, err)
	}
	err = writeSnapshotFile(f, recs)
	if cerr := f.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write snapshot %s: %w", tmp, err)
	}
	hook("snapshot-written")
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename snapshot %s: %w", tmp, err)
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	hook("snapshot-renamed")
	return nil
}

func writeSnapshotFile(f *os.File, recs []snapRec) error {
	bw := bufio.NewWriterSize(f, 1<<20)
	if _, err := bw.WriteString(snapMagic); err != nil {
		return err
	}
	frame := newFrame(1 << 20)
	for i := 0; i < len(recs); i += snapshotBatch {
		frame = encodeSnapBatch(frame[:frameHeaderLen], recs[i:min(i+snapshotBatch, len(recs))])
		if _, err := bw.Write(sealFrame(frame)); err != nil {
			return err
		}
	}
	if _, err := bw.Write(sealFrame(encodeEnd(frame[:frameHeaderLen], uint64(len(recs))))); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// readSnapshot applies every batch of a snapshot. A snapshot is renamed into
// place only once whole, so anything short of that is corruption, not a
// crash, and is an error.
func readSnapshot(path string, apply func(op, []lexical.SparseVector) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open snapshot %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat snapshot %s: %w", path, err)
	}
	var magic [magicLen]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != snapMagic {
		return fmt.Errorf("read snapshot %s: not a snapshot (bad header)", path)
	}
	next, stop := decodeAhead(newFrameReader(f, magicLen, st.Size()))
	defer stop()
	var records uint64
	for {
		d := next()
		if errors.Is(d.err, io.EOF) {
			return fmt.Errorf("read snapshot %s: ends without its trailer", path)
		}
		if d.err != nil {
			return fmt.Errorf("read snapshot %s at offset %d: %w", path, d.off, d.err)
		}
		if d.decodeErr != nil {
			return fmt.Errorf("decode snapshot %s at offset %d: %w", path, d.off, d.decodeErr)
		}
		switch d.o.kind {
		case opUpsert:
			records += uint64(len(d.o.mems))
			if err := apply(d.o, d.lex); err != nil {
				return fmt.Errorf("apply snapshot %s: %w", path, err)
			}
		case opEnd:
			if d.o.count != records || d.off != st.Size() {
				return fmt.Errorf("read snapshot %s: trailer says %d records, read %d", path, d.o.count, records)
			}
			return nil
		default:
			return fmt.Errorf("read snapshot %s: unexpected payload kind %d", path, d.o.kind)
		}
	}
}
