package local

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
)

// The float32 vectors of a big partition live in a file of the store's
// vecs directory, memory-mapped chunk by chunk, rather than on the Go heap:
// the kernel keeps the pages a search touches and may drop the others,
// which the file holds. The files are a cache derived from the log, rebuilt
// by every replay and never read back after a restart, so they are removed
// at Open (left by a process that died), when a partition drops its
// vectors, and at Close.
const (
	// VectorCacheDir is the cache's directory in the store's: not part of
	// what the store keeps (benchmarks leave it out of the size on disk).
	VectorCacheDir = "vecs"
	vecSuffix      = ".f32"
	// defaultVecReserve is the free space the cache leaves to the log: a
	// chunk that would leave less stays on the heap, so that the cache
	// never takes the room an acknowledged write needs.
	defaultVecReserve = 64 << 20
)

// vecCache is a store's directory of vector files.
type vecCache struct {
	dir       string
	log       *slog.Logger
	reserve   int64
	off       bool // nothing is mapped: no support, or stale files were not removed
	next      atomic.Uint64
	mapped    atomic.Int64 // bytes mapped now
	maps      atomic.Int64 // mappings now, at most maxMaps
	maxMaps   int64
	fallbacks atomic.Uint64 // chunks kept on the heap because mapping failed
	warned    atomic.Bool
}

// openVecCache removes what a previous process left in storeDir's cache
// directory. It never fails: without a cache, vectors stay on the heap.
func openVecCache(storeDir string, log *slog.Logger, reserve int64) *vecCache {
	c := &vecCache{dir: filepath.Join(storeDir, VectorCacheDir), log: log, reserve: reserve, off: !canMapVectors,
		maxMaps: maxVectorMaps()}
	if err := os.RemoveAll(c.dir); err != nil {
		log.Warn("local store vector cache not cleared, vectors stay on the heap", "dir", c.dir, "err", err)
		c.off = true
	}
	return c
}

// file returns a new partition's file, created when its first chunk is
// mapped, or nil when nothing is mapped.
func (c *vecCache) file() *vecFile {
	if c == nil || c.off {
		return nil
	}
	return &vecFile{cache: c, path: filepath.Join(c.dir, fmt.Sprintf("%d%s", c.next.Add(1), vecSuffix))}
}

// fallback counts a chunk that stays on the heap, logging the first.
func (c *vecCache) fallback(path string, err error) {
	c.fallbacks.Add(1)
	if !c.warned.Swap(true) {
		c.log.Warn("local store vector chunk kept on the heap (logged once)", "path", path, "err", err)
	}
}

// close removes the directory once every file is released.
func (c *vecCache) close() {
	if c == nil || c.off {
		return
	}
	if err := os.RemoveAll(c.dir); err != nil {
		c.log.Warn("local store vector cache not removed", "dir", c.dir, "err", err)
	}
}

// vecFile backs the full chunks of one rowStore; maps[c] is chunk c's
// mapping, nil while that chunk is on the heap.
type vecFile struct {
	cache   *vecCache
	path    string
	created bool
	maps    [][]byte
}

// mapped reports whether chunk c is mapped.
func (f *vecFile) mapped(c int) bool { return c < len(f.maps) && f.maps[c] != nil }

// chunkBytes returns chunk c's mapping, or nil.
func (f *vecFile) chunkBytes(c int) []byte {
	if !f.mapped(c) {
		return nil
	}
	return f.maps[c]
}

// mapChunk maps size bytes for chunk c, or returns nil (logged once) when
// the space cannot be reserved or mapped: the caller keeps the chunk on
// the heap and the write goes on.
func (f *vecFile) mapChunk(c, size int) []byte {
	if n := f.cache.maps.Add(1); n > f.cache.maxMaps {
		f.cache.maps.Add(-1)
		f.cache.fallback(f.path, fmt.Errorf("%d mappings, half the system's limit (vm.max_map_count), are in use", n-1))
		return nil
	}
	b, err := f.mapRegion(int64(c)*int64(size), size)
	if err != nil {
		f.cache.maps.Add(-1)
		f.cache.fallback(f.path, err)
		return nil
	}
	for len(f.maps) <= c {
		f.maps = append(f.maps, nil)
	}
	f.maps[c] = b
	f.cache.mapped.Add(int64(size))
	return b
}

// unmap releases chunk c's mapping. No reader may hold a slice of it: the
// caller holds the partition's write lock.
func (f *vecFile) unmap(c int) {
	if !f.mapped(c) {
		return
	}
	b := f.maps[c]
	f.maps[c] = nil
	f.cache.mapped.Add(-int64(len(b)))
	f.cache.maps.Add(-1)
	if err := unmapRegion(b); err != nil {
		f.cache.log.Warn("local store vector chunk not unmapped", "path", f.path, "chunk", c, "err", err)
	}
}

// release unmaps every chunk and removes the file.
func (f *vecFile) release() {
	for c := range f.maps {
		f.unmap(c)
	}
	f.maps = nil
	if f.created {
		if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
			f.cache.log.Warn("local store vector file not removed", "path", f.path, "err", err)
		}
		f.created = false
	}
}
