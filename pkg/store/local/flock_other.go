//go:build !unix

package local

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDir only creates the lock file where flock is unavailable.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	return f, nil
}
