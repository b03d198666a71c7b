// Package tmpfs gives tests a size-limited file system to fill: the
// disk-full cases of the bus, the local store and the whole process.
package tmpfs

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (as mount's -o size=, e.g. "16m") on a fresh
// directory and returns it, unmounted when the test ends. It skips, naming
// the reason, with -short, when not root, or when the machine refuses the
// mount.
func Mount(t testing.TB, size string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("mounts a tmpfs; skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("disk-full case skipped: mounting a size-limited tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("disk-full case skipped: this machine does not permit mount -t tmpfs (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes path until its file system is full, down to the last block.
func Fill(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for n := len(chunk); n > 0; n /= 2 {
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fill %s: %v", path, err)
				}
				break
			}
		}
	}
}
