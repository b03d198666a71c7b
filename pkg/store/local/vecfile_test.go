package local

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/internal/tmpfs"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// withVecReserve sets the free space the vector cache leaves to the log.
func withVecReserve(n int64) Option { return func(o *options) { o.vecReserve = n } }

// vecFileNames lists the store's vector cache files (nil: no directory).
func vecFileNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, VectorCacheDir))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func skipUnlessMapped(t *testing.T) {
	if !canMapVectors {
		t.Skipf("vectors are mapped on linux only, not %s", runtime.GOOS)
	}
}

// vecMemories is a tenant's memories as a test writes them: vecs[n] is
// memory n's vector (nil once deleted).
type vecMemories struct {
	tenant string
	dim    int
	vecs   map[int][]float32
}

func (v *vecMemories) put(t *testing.T, s *Store, from, to int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	for start := from; start < to; start += 256 {
		var batch []memory.Memory
		for n := start; n < min(to, start+256); n++ {
			vec := seededVector(seed+uint64(n), v.dim)
			unit, err := normalized(vec)
			if err != nil {
				t.Fatal(err)
			}
			v.vecs[n] = unit
			batch = append(batch, testMemory(v.tenant, n, vec))
		}
		if err := s.Upsert(ctx, batch); err != nil {
			t.Fatalf("upsert %d..%d: %v", start, start+len(batch)-1, err)
		}
	}
}

func (v *vecMemories) del(t *testing.T, s *Store, from, to int) {
	t.Helper()
	var ids []string
	for n := from; n < to; n++ {
		ids = append(ids, testMemory(v.tenant, n, nil).ID)
		delete(v.vecs, n)
	}
	if err := s.Delete(context.Background(), v.tenant, ids...); err != nil {
		t.Fatal(err)
	}
}

// check reads every memory back and finds a few by exact search.
func (v *vecMemories) check(t *testing.T, s *Store, what string) {
	t.Helper()
	ctx := context.Background()
	count, err := s.Count(ctx, v.tenant, store.Filter{})
	if err != nil || count != len(v.vecs) {
		t.Fatalf("%s: count %d (%v), want %d", what, count, err, len(v.vecs))
	}
	bad := 0
	for n, want := range v.vecs {
		m, err := s.Get(ctx, v.tenant, testMemory(v.tenant, n, nil).ID)
		if err != nil {
			t.Fatalf("%s: get %d: %v", what, n, err)
		}
		if !sameBits(m.Vector, want) {
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d vectors differ from what was written", what, bad, len(v.vecs))
	}
	for n, want := range v.vecs {
		if n%97 != 0 {
			continue
		}
		hits, err := s.SearchExact(ctx, store.Query{Tenant: v.tenant, Vector: want, K: 1})
		if err != nil || len(hits) == 0 || hits[0].Memory.ID != testMemory(v.tenant, n, nil).ID {
			t.Fatalf("%s: exact search for memory %d: %v %v", what, n, hits, err)
		}
	}
}

func chunkBytes(dim int) int64 { return int64(chunkRows * dim * 4) }

// TestMappedVectors grows a tenant over several chunks, so that its
// vectors move to a mapped file, then deletes across chunk boundaries
// (swap-remove), rewrites some, and reopens: every vector reads back as
// written, and the file is gone after Close.
func TestMappedVectors(t *testing.T) {
	skipUnlessMapped(t)
	dir := t.TempDir()
	s := openT(t, dir)
	big := &vecMemories{tenant: "big", dim: 8, vecs: map[int][]float32{}}
	small := &vecMemories{tenant: "small", dim: 8, vecs: map[int][]float32{}}
	small.put(t, s, 0, 10, 1)
	big.put(t, s, 0, 3*chunkRows+100, 2)
	if got, want := s.Stats().MappedVectorBytes, 4*chunkBytes(8); got != want {
		t.Errorf("mapped %d bytes, want %d (four chunks)", got, want)
	}
	if names := vecFileNames(t, dir); len(names) != 1 {
		t.Errorf("vector files %v, want one (the small tenant stays on the heap)", names)
	}
	big.check(t, s, "grown")
	small.check(t, s, "grown")

	big.del(t, s, 0, 1500) // rows from the end move into the gaps
	big.put(t, s, 2000, 2100, 3)
	big.check(t, s, "after deletes and rewrites")
	if got, want := s.Stats().MappedVectorBytes, 3*chunkBytes(8); got != want {
		t.Errorf("mapped %d bytes after deletes, want %d (two chunks and a spare)", got, want)
	}
	closeT(t, s)
	if names := vecFileNames(t, dir); names != nil {
		t.Errorf("vector cache left after Close: %v", names)
	}

	s = openT(t, dir)
	defer closeT(t, s)
	big.check(t, s, "reopened")
	small.check(t, s, "reopened")
	if st := s.Stats(); st.MappedVectorBytes != 3*chunkBytes(8) || st.VectorHeapFallbacks != 0 {
		t.Errorf("reopened: mapped %d bytes, %d fallbacks; want %d, 0 (the replay deletes too)", st.MappedVectorBytes, st.VectorHeapFallbacks, 3*chunkBytes(8))
	}
	if _, err := s.Get(context.Background(), "big", "x"); err == nil {
		t.Error("get of a missing id succeeded")
	}
}

// TestMappedVectorsReleasedWhenEmptied checks that a tenant whose vectors
// are all deleted gives its file back, and maps a new one when it grows
// again.
func TestMappedVectorsReleasedWhenEmptied(t *testing.T) {
	skipUnlessMapped(t)
	dir := t.TempDir()
	s := openT(t, dir)
	defer closeT(t, s)
	v := &vecMemories{tenant: "gone", dim: 4, vecs: map[int][]float32{}}
	v.put(t, s, 0, chunkRows+10, 1)
	if names := vecFileNames(t, dir); len(names) != 1 {
		t.Fatalf("vector files %v, want one", names)
	}
	v.del(t, s, 0, chunkRows+10)
	if names := vecFileNames(t, dir); len(names) != 0 {
		t.Errorf("vector files %v after the tenant was emptied, want none", names)
	}
	if got := s.Stats().MappedVectorBytes; got != 0 {
		t.Errorf("mapped %d bytes after the tenant was emptied", got)
	}
	v.put(t, s, 0, chunkRows+10, 2)
	v.check(t, s, "grown again")
	if names := vecFileNames(t, dir); len(names) != 1 {
		t.Errorf("vector files %v after growing again, want one", names)
	}
}

// TestStaleVectorFilesRemovedAtOpen plays a process that died with its
// cache on disk: Open removes the files, whatever they hold.
func TestStaleVectorFilesRemovedAtOpen(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, VectorCacheDir, "1"+vecSuffix)
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("left by a killed process"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openT(t, dir)
	defer closeT(t, s)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale vector file still there after Open: %v", err)
	}
}

// TestMappedVectorsClosedReaders checks that reads after Close, which
// unmaps the vectors, are refused rather than touching the mapping.
func TestMappedVectorsClosedReaders(t *testing.T) {
	skipUnlessMapped(t)
	s := openT(t, t.TempDir())
	v := &vecMemories{tenant: "t", dim: 4, vecs: map[int][]float32{}}
	v.put(t, s, 0, chunkRows+1, 1)
	closeT(t, s)
	ctx := context.Background()
	if _, err := s.Search(ctx, store.Query{Tenant: "t", Vector: v.vecs[0], K: 1}); err == nil {
		t.Error("search after Close succeeded")
	}
	if _, err := s.Get(ctx, "t", testMemory("t", 0, nil).ID); err == nil {
		t.Error("get after Close succeeded")
	}
	if _, err := s.SearchText(ctx, store.TextQuery{Tenant: "t", Text: "local memory", K: 1}); err == nil {
		t.Error("text search after Close succeeded")
	}
	if err := s.Scroll(ctx, "t", store.Filter{}, func(memory.Memory) error { return nil }); err == nil {
		t.Error("scroll after Close succeeded")
	}
}

// TestMappedVectorsCloseUnderReads closes the store while readers run:
// each read either answers or reports the store closed, none touches an
// unmapped chunk (which would crash the test binary).
func TestMappedVectorsCloseUnderReads(t *testing.T) {
	skipUnlessMapped(t)
	s := openT(t, t.TempDir())
	v := &vecMemories{tenant: "t", dim: 16, vecs: map[int][]float32{}}
	v.put(t, s, 0, 2*chunkRows+1, 1)
	ctx := context.Background()
	errs := make(chan error, 4)
	for r := range 4 {
		go func() {
			for i := 0; ; i++ {
				var err error
				switch (i + r) % 3 {
				case 0:
					_, err = s.SearchExact(ctx, store.Query{Tenant: "t", Vector: v.vecs[i%len(v.vecs)], K: 3})
				case 1:
					_, err = s.Get(ctx, "t", testMemory("t", i%len(v.vecs), nil).ID)
				default:
					_, err = s.SearchText(ctx, store.TextQuery{Tenant: "t", Text: "local memory", K: 3})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	closeT(t, s)
	for range 4 {
		if err := <-errs; !errors.Is(err, store.ErrClosed) {
			t.Errorf("read during Close: %v, want store.ErrClosed", err)
		}
	}
}

// TestMappedVectorsFullDisk leaves less room on a small tmpfs than a chunk
// needs: the chunks stay on the heap (logged once), no write fails and
// nothing faults; once space returns, new chunks are mapped again.
func TestMappedVectorsFullDisk(t *testing.T) {
	skipUnlessMapped(t)
	root := tmpfs.Mount(t, "4m")
	dir := filepath.Join(root, "store")
	logs := &logCapture{}
	open := func() *Store {
		s, err := Open(dir, WithLogger(slog.New(logs)), withVecReserve(0))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	const dim = 64 // a chunk is 256 KiB
	v := &vecMemories{tenant: "full", dim: dim, vecs: map[int][]float32{}}
	v.put(t, s, 0, chunkRows, 1) // the first chunk, on the heap
	filler := filepath.Join(root, "filler")
	tmpfs.Fill(t, filler)
	fi, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filler, fi.Size()-chunkBytes(dim)/2); err != nil { // room for the log, not for a chunk
		t.Fatal(err)
	}
	v.put(t, s, chunkRows, chunkRows+50, 2)
	st := s.Stats()
	if st.MappedVectorBytes != 0 || st.VectorHeapFallbacks != 2 {
		t.Errorf("full disk: mapped %d bytes, %d fallbacks; want 0, 2 (chunks 0 and 1 on the heap)", st.MappedVectorBytes, st.VectorHeapFallbacks)
	}
	warned := 0
	for _, m := range logs.messages() {
		if strings.Contains(m, "kept on the heap") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d heap fallback warnings, want 1: %v", warned, logs.messages())
	}
	v.check(t, s, "full disk")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	v.put(t, s, chunkRows+50, 2*chunkRows+10, 3)
	if got := s.Stats().MappedVectorBytes; got != chunkBytes(dim) {
		t.Errorf("space back: mapped %d bytes, want %d (the third chunk)", got, chunkBytes(dim))
	}
	v.check(t, s, "space back")
	closeT(t, s)

	s = open()
	defer closeT(t, s)
	v.check(t, s, "reopened")
	if got := s.Stats().MappedVectorBytes; got != 3*chunkBytes(dim) {
		t.Errorf("reopened: mapped %d bytes, want %d", got, 3*chunkBytes(dim))
	}
}

// TestMappedVectorsKeepFreeSpace checks the default reserve: on a file
// system with less free space than it, nothing is mapped.
func TestMappedVectorsKeepFreeSpace(t *testing.T) {
	skipUnlessMapped(t)
	root := tmpfs.Mount(t, "8m")
	s := openT(t, filepath.Join(root, "store"))
	defer closeT(t, s)
	v := &vecMemories{tenant: "r", dim: 16, vecs: map[int][]float32{}}
	v.put(t, s, 0, 2*chunkRows+1, 1)
	if st := s.Stats(); st.MappedVectorBytes != 0 || st.VectorHeapFallbacks == 0 {
		t.Errorf("mapped %d bytes, %d fallbacks on an 8 MiB file system; want 0, some", st.MappedVectorBytes, st.VectorHeapFallbacks)
	}
	v.check(t, s, "reserve")
	if names := vecFileNames(t, filepath.Join(root, "store")); len(names) != 0 {
		t.Errorf("vector files %v, want none", names)
	}
}

// TestRowStoreMapLimit checks that a store past its share of the system's
// mappings keeps further chunks on the heap, rows intact.
func TestRowStoreMapLimit(t *testing.T) {
	skipUnlessMapped(t)
	logs := &logCapture{}
	c := openVecCache(t.TempDir(), slog.New(logs), 0)
	c.maxMaps = 2
	s := newRowStore[float32](3)
	s.file = c.file()
	const n = 4*chunkRows + 5
	for i := range n {
		s.push()
		for j, x := range s.row(i) {
			if x != 0 {
				t.Fatalf("row %d starts with %v at %d, want zeros", i, x, j)
			}
		}
		s.row(i)[0], s.row(i)[2] = float32(i), -float32(i)
	}
	if got := c.maps.Load(); got != 2 {
		t.Errorf("%d mappings, want 2 (the limit)", got)
	}
	if got := c.fallbacks.Load(); got != 3 {
		t.Errorf("%d chunks on the heap, want 3", got)
	}
	for i := range n {
		if r := s.row(i); r[0] != float32(i) || r[1] != 0 || r[2] != -float32(i) {
			t.Fatalf("row %d = %v", i, r)
		}
	}
	s.truncate(chunkRows + 1)
	if got := c.maps.Load(); got != 2 {
		t.Errorf("%d mappings after truncating to two chunks, want 2", got)
	}
	s.truncate(5)
	if got := c.maps.Load(); got != 2 {
		t.Errorf("%d mappings after truncating to one chunk, want 2 (chunk 1 kept as a spare)", got)
	}
	s.truncate(0)
	if got := c.maps.Load(); got != 0 {
		t.Errorf("%d mappings after truncating to nothing, want 0", got)
	}
	for range 3 * chunkRows {
		i := s.push()
		if r := s.row(i); r[0] != 0 || r[2] != 0 {
			t.Fatalf("regrown row %d = %v, want zeros", i, r)
		}
	}
	s.release()
	if got := c.maps.Load(); got != 0 {
		t.Errorf("%d mappings after release", got)
	}
	c.close()
}
