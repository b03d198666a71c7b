package local

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// fuzzFrames turns data into a file body: as is (torn frames, garbage), or
// with framed set, as chunks of [2-byte little-endian length][payload],
// each sealed into a frame with a valid checksum, so the record decoder
// behind the checksum gets arbitrary payloads too.
func fuzzFrames(data []byte, framed bool) []byte {
	if !framed {
		return data
	}
	var out []byte
	for len(data) >= 2 {
		n := int(binary.LittleEndian.Uint16(data))
		data = data[2:]
		n = min(n, len(data))
		f := newFrame(n)
		f = append(f, data[:n]...)
		out = append(out, sealFrame(f)...)
		data = data[n:]
	}
	return out
}

// chunk is the framed form of one payload for a seed.
func chunk(p []byte) []byte {
	return append(binary.LittleEndian.AppendUint16(nil, uint16(len(p))), p...)
}

func fuzzSeedPayloads(f *testing.F) [][]byte {
	mems := []memory.Memory{testMemory("acme", 1, []float32{0.6, 0.8}), testMemory("acme", 2, []float32{1, 0})}
	up, _, err := encodeUpsert(nil, mems)
	if err != nil {
		f.Fatal(err)
	}
	pl, _, err := encodePayload(nil, mems[:1])
	if err != nil {
		f.Fatal(err)
	}
	return [][]byte{up, pl, encodeDelete(nil, "acme", []string{mems[1].ID}), encodeEnd(nil, 2)}
}

// FuzzWALRecovery writes a log of fuzzed frames and opens the store on it:
// recovery never panics; when it succeeds, a second open (after recovery cut
// any torn tail) succeeds too and sees the same memories. A log whose
// checksummed frame cannot be decoded must stop the open with an error, not
// be cut (those are acknowledged bytes). Seeds: testdata/fuzz/FuzzWALRecovery.
func FuzzWALRecovery(f *testing.F) {
	ps := fuzzSeedPayloads(f)
	f.Add(append(chunk(ps[0]), chunk(ps[2])...), true)
	f.Add(append(chunk(ps[0]), chunk(ps[1])...), true)
	f.Add(sealFrame(append(newFrame(0), ps[0]...))[:20], false)
	f.Add(make([]byte, 64), false)
	f.Fuzz(func(t *testing.T, data []byte, framed bool) {
		dir := t.TempDir()
		body := append([]byte(walMagic), fuzzFrames(data, framed)...)
		if err := os.WriteFile(walPath(dir, 1), body, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, WithLogger(discardLogger()))
		if err != nil {
			return
		}
		first := s.Stats().Memories
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		s, err = Open(dir, WithLogger(discardLogger()))
		if err != nil {
			t.Fatalf("reopen after a successful recovery: %v", err)
		}
		defer s.Close()
		if got := s.Stats().Memories; got != first {
			t.Fatalf("reopen sees %d memories, first open %d", got, first)
		}
	})
}

// FuzzSnapshotRead reads a fuzzed snapshot file: no panic, and a snapshot
// it accepts ends with a trailer counting exactly the records applied.
// Seeds: testdata/fuzz/FuzzSnapshotRead.
func FuzzSnapshotRead(f *testing.F) {
	ps := fuzzSeedPayloads(f)
	f.Add(append(chunk(ps[0]), chunk(ps[3])...), true)
	f.Add(append(chunk(ps[0]), chunk(encodeEnd(nil, 3))...), true)
	f.Add(append(chunk(ps[2]), chunk(ps[3])...), true)
	f.Add([]byte{1, 2, 3}, false)
	f.Fuzz(func(t *testing.T, data []byte, framed bool) {
		path := snapPath(t.TempDir(), 1)
		if err := os.WriteFile(path, append([]byte(snapMagic), fuzzFrames(data, framed)...), 0o600); err != nil {
			t.Fatal(err)
		}
		applied := 0
		err := readSnapshot(path, func(o op, lex []lexical.SparseVector) error {
			if o.kind != opUpsert {
				t.Fatalf("applied a batch of kind %d", o.kind)
			}
			applied += len(o.mems)
			return nil
		})
		if err != nil {
			return
		}
		var end uint64
		// The accepted file's last frame is its trailer.
		body := fuzzFrames(data, framed)
		fr := newFrameReader(bytes.NewReader(body), 0, int64(len(body)))
		for {
			p, err := fr.next()
			if err != nil {
				break
			}
			if o, err := decodeOp(p); err == nil && o.kind == opEnd {
				end = o.count
			}
		}
		if end != uint64(applied) {
			t.Fatalf("trailer counts %d records, %d applied", end, applied)
		}
	})
}
