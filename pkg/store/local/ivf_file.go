package local

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// The index file (index.ivf) saves each ready index with the log position
// it describes: a snapshot's start (its number, just past the header of
// the log of that number) when written by a compaction, or the end of the
// log when written by Close. Recovery attaches the saved indexes when the
// replay reaches that position, where the rows are exactly those the file
// describes, and the replay of later records keeps them exact as writes
// do. A file that is missing, unreadable, corrupt or never reached is
// ignored: the partitions are indexed again in the background.
//
// Layout, little endian: magic, seq u64, off i64, tenants u32, then per
// tenant: name (u32 length, bytes), rows u32, dim u32, lists u32,
// trained u64, lists·dim float32 centroids, rows int32 list numbers (-1
// for a row without a vector); then the CRC-32C of everything after the
// magic.
const (
	ivfFileName  = "index.ivf"
	ivfFileMagic = "RCLIVF01"
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// logPos is a point in the log: the state after every record before byte
// off of log seq.
type logPos struct {
	seq uint64
	off int64
}

// ivfFile is the content of an index file.
type ivfFile struct {
	pos     logPos
	tenants []ivfSaved
}

// ivfSaved is one partition's index as saved.
type ivfSaved struct {
	tenant  string
	dim     int
	trained int
	cents   []float32 // shared with the live index: never changed in place
	where   []int32
}

// captureIndexes copies every ready index. The caller holds writeMu, so
// no write changes them meanwhile.
func (s *Store) captureIndexes() []ivfSaved {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []ivfSaved
	for tenant, p := range s.parts {
		p.mu.RLock()
		if x := p.ivf; x != nil && x.n == len(p.recs) {
			out = append(out, ivfSaved{tenant: tenant, dim: x.dim, trained: x.trained, cents: x.cents,
				where: slices.Clone(x.where[:x.n])})
		}
		p.mu.RUnlock()
	}
	slices.SortFunc(out, func(a, b ivfSaved) int {
		switch {
		case a.tenant < b.tenant:
			return -1
		case a.tenant > b.tenant:
			return 1
		}
		return 0
	})
	return out
}

// saveIndexes writes the ready indexes as of pos, unless the file already
// holds them (nothing written or trained since it was read or written).
// The caller holds writeMu. Failure is logged, never fatal: the index is
// derived state.
func (s *Store) saveIndexes(pos logPos, force bool) {
	if !force && pos == s.ivfPos && !s.ivfChanged.Load() {
		return
	}
	tenants := s.captureIndexes()
	if len(tenants) == 0 {
		return
	}
	s.writeIndexes(ivfFile{pos: pos, tenants: tenants})
}

// writeIndexes writes f as the index file (temporary file, fsync, rename,
// directory fsync) and logs a failure.
func (s *Store) writeIndexes(f ivfFile) {
	start := s.now()
	if err := writeIndexFile(s.dir, f); err != nil {
		s.log.Warn("local store index not saved; it will be rebuilt after a restart", "dir", s.dir, "err", err)
		return
	}
	s.ivfPos = f.pos
	s.ivfChanged.Store(false)
	s.log.Debug("local store index saved", "dir", s.dir, "tenants", len(f.tenants), "took", s.now().Sub(start))
}

func writeIndexFile(dir string, f ivfFile) error {
	path := filepath.Join(dir, ivfFileName)
	tmp := path + tmpSuffix
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create index file %s: %w", tmp, err)
	}
	err = encodeIndexFile(out, f)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write index file %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename index file %s: %w", tmp, err)
	}
	return syncDir(dir)
}

func encodeIndexFile(w io.Writer, f ivfFile) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(ivfFileMagic); err != nil {
		return err
	}
	h := crc32.New(crcTable)
	body := io.MultiWriter(bw, h)
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, f.pos.seq)
	b = binary.LittleEndian.AppendUint64(b, uint64(f.pos.off))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(f.tenants)))
	for _, t := range f.tenants {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.tenant)))
		b = append(b, t.tenant...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.where)))
		b = binary.LittleEndian.AppendUint32(b, uint32(t.dim))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.cents)/t.dim))
		b = binary.LittleEndian.AppendUint64(b, uint64(t.trained))
		for _, c := range t.cents {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(c))
		}
		for _, l := range t.where {
			b = binary.LittleEndian.AppendUint32(b, uint32(l))
		}
		if _, err := body.Write(b); err != nil {
			return err
		}
		b = b[:0]
	}
	if _, err := body.Write(b); err != nil {
		return err
	}
	if _, err := bw.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32())); err != nil {
		return err
	}
	return bw.Flush()
}

// readIndexFile reads dir's index file; (nil, nil) when there is none.
func readIndexFile(dir string) (*ivfFile, error) {
	data, err := os.ReadFile(filepath.Join(dir, ivfFileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index file: %w", err)
	}
	return decodeIndexFile(data)
}

func decodeIndexFile(data []byte) (*ivfFile, error) {
	if len(data) < len(ivfFileMagic)+4 || string(data[:len(ivfFileMagic)]) != ivfFileMagic {
		return nil, errors.New("index file: bad header")
	}
	body := data[len(ivfFileMagic) : len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errors.New("index file: checksum mismatch")
	}
	d := decoder{b: body}
	f := &ivfFile{pos: logPos{seq: d.u64(), off: int64(d.u64())}}
	n := int(d.u32())
	for range n {
		name := d.bytes(int(d.u32()))
		rows, dim, nlist, trained := int(d.u32()), int(d.u32()), int(d.u32()), int(d.u64())
		if d.err != nil || dim == 0 || nlist == 0 || uint64(nlist)*uint64(dim) > uint64(len(d.b))/4 ||
			uint64(rows) > uint64(len(d.b))/4 {
			return nil, errors.New("index file: malformed tenant header")
		}
		t := ivfSaved{tenant: string(name), dim: dim, trained: trained,
			cents: make([]float32, nlist*dim), where: make([]int32, rows)}
		for j := range t.cents {
			t.cents[j] = math.Float32frombits(d.u32())
		}
		for j := range t.where {
			t.where[j] = int32(d.u32())
		}
		f.tenants = append(f.tenants, t)
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errors.New("index file: malformed body")
	}
	return f, nil
}

// decoder reads little-endian values, remembering a short read.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) u32() uint32 {
	if b := d.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// loadIndexFile reads the index file for recovery to attach; a bad one is
// logged and ignored.
func (s *Store) loadIndexFile() {
	f, err := readIndexFile(s.dir)
	if err != nil {
		s.log.Warn("local store index file ignored; indexes will be rebuilt", "dir", s.dir, "err", err)
		return
	}
	s.ivfSaved = f
}

// attachIndexes gives the partitions their saved indexes if the replay
// has just reached the file's position. Recovery calls it at each record
// boundary.
func (s *Store) attachIndexes(pos logPos) {
	f := s.ivfSaved
	if f == nil || f.pos != pos {
		return
	}
	s.ivfSaved = nil
	s.ivfPos = pos
	for _, t := range f.tenants {
		p := s.partition(t.tenant)
		if p == nil || !p.attachIVF(t) {
			s.log.Warn("local store saved index does not fit its tenant; it will be rebuilt", "tenant", t.tenant)
			s.ivfChanged.Store(true)
		}
	}
}

// attachIVF makes t p's index if it describes p's rows: same count, same
// width, a list exactly for the rows with a vector.
func (p *partition) attachIVF(t ivfSaved) bool {
	if p.quant == nil || p.dim != t.dim || len(t.where) != len(p.recs) || p.indexMin == 0 {
		return false
	}
	x := newIVF(t.dim, t.cents, t.trained)
	x.where = make([]int32, 0, len(t.where))
	x.pos = make([]int32, 0, len(t.where))
	for i, l := range t.where {
		x.grow(i)
		switch {
		case l < 0 && !p.hasVec[i]:
		case l >= 0 && int(l) < x.nlist && p.hasVec[i]:
			x.put(i, l)
		default:
			return false
		}
	}
	x.n = len(t.where)
	p.ivf = x
	return true
}

// indexAfterRecovery reports a saved index the replay never reached and
// starts training where a partition wants an index. The caller holds
// writeMu.
func (s *Store) indexAfterRecovery() {
	if s.ivfSaved != nil {
		s.log.Info("local store index file is for another state of the log; indexes will be rebuilt",
			"dir", s.dir, "seq", s.ivfSaved.pos.seq, "offset", s.ivfSaved.pos.off)
		s.ivfSaved = nil
		s.ivfChanged.Store(true)
	}
	s.mu.RLock()
	parts := make(map[string]*partition, len(s.parts))
	for t, p := range s.parts {
		parts[t] = p
	}
	s.mu.RUnlock()
	for t, p := range parts {
		p.mu.Lock()
		s.maybeIndex(t, p)
		p.mu.Unlock()
	}
}
