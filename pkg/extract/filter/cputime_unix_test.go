//go:build unix

package filter

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user + system), so that a
// benchmark can report throughput per CPU-second on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
