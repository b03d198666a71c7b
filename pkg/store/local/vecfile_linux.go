//go:build linux

package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const canMapVectors = true

// maxVectorMaps is how many chunks a store maps at most: half the
// system's limit on mappings, which the Go runtime needs too (failing to
// map its own memory is fatal).
func maxVectorMaps() int64 {
	n := int64(65530) // the kernel's default
	if b, err := os.ReadFile("/proc/sys/vm/max_map_count"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			n = v
		}
	}
	return n / 2
}

// mapRegion reserves size bytes at off in the file and maps them shared.
func (f *vecFile) mapRegion(off int64, size int) ([]byte, error) {
	if f.cache.reserve > 0 {
		var st unix.Statfs_t
		if err := unix.Statfs(filepath.Dir(f.cache.dir), &st); err == nil {
			if free := int64(st.Bavail) * int64(st.Bsize); free < int64(size)+f.cache.reserve {
				return nil, fmt.Errorf("%d bytes free, %d kept for the log: %w", free, f.cache.reserve, unix.ENOSPC)
			}
		}
	}
	if !f.created {
		if err := os.MkdirAll(f.cache.dir, 0o700); err != nil {
			return nil, fmt.Errorf("create vector cache dir: %w", err)
		}
	}
	fd, err := unix.Open(f.path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open vector file: %w", err)
	}
	f.created = true
	defer unix.Close(fd)
	// Reserved before it is mapped: a store to a page of a shared mapping
	// the file system cannot back is a SIGBUS, not an error.
	for {
		err = unix.Fallocate(fd, 0, off, int64(size))
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reserve %d bytes at %d: %w", size, off, err)
	}
	b, err := unix.Mmap(fd, off, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %d bytes at %d: %w", size, off, err)
	}
	// Faulted in writable at once (Linux 5.14 on; earlier, page by page
	// as rows are written): a chunk is mapped to be filled, and one call
	// costs less than a fault per page.
	_ = unix.Madvise(b, unix.MADV_POPULATE_WRITE)
	return b, nil
}

func unmapRegion(b []byte) error { return unix.Munmap(b) }

// dropPages takes chunk c's pages out of the process's resident set; the
// file keeps their contents, and a later read faults them back in.
func (f *vecFile) dropPages(c int) {
	if f.mapped(c) {
		_ = unix.Madvise(f.maps[c], unix.MADV_DONTNEED) // advice: nothing to undo if refused
	}
}
