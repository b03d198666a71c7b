//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the user and system CPU time the process has used, all
// threads included: on a machine shared with other work it measures a
// benchmark's cost better than the wall clock, which mixes in the wait for
// a core. It is 0 where the system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Read is the process's usage, from one getrusage call; zero where the
// system does not say.
func Read() Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Usage{}
	}
	return Usage{CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), MinorFaults: int64(ru.Minflt), MajorFaults: int64(ru.Majflt)}
}
