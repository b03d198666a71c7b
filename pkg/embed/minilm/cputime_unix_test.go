//go:build unix

package minilm

import "syscall"

// processCPU returns the user and system CPU time the process has used,
// in nanoseconds, all threads included.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
