//go:build unix

package cli

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time the process has used, all
// threads included: on a shared machine a rate per CPU second leaves out
// the wait for a core that a wall-clock rate mixes in.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
