//go:build !linux

package local

import "errors"

// Elsewhere vectors stay on the heap: fallocate, which keeps a full disk
// from turning a store into a SIGBUS, is Linux's.
const canMapVectors = false

func maxVectorMaps() int64 { return 0 }

func (f *vecFile) mapRegion(int64, int) ([]byte, error) {
	return nil, errors.New("vector files are mapped on linux only")
}

func unmapRegion([]byte) error { return nil }

func (f *vecFile) dropPages(int) {}
