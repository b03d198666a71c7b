package cputime

import "time"

// Usage is what the process has used so far: CPU time (user and system,
// all threads) and page faults, minor (the page was in memory, only not
// mapped) and major (it had to be read from disk).
type Usage struct {
	CPU                      time.Duration
	MinorFaults, MajorFaults int64
}

// Sub is the usage between before and u.
func (u Usage) Sub(before Usage) Usage {
	return Usage{CPU: u.CPU - before.CPU, MinorFaults: u.MinorFaults - before.MinorFaults, MajorFaults: u.MajorFaults - before.MajorFaults}
}
