//go:build unix

package usage

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive advisory lock on f without waiting; false if
// another process holds it. The kernel drops it when the holder dies.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
