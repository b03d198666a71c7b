package cli

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// loadAverage is the 1-minute load average (0 where /proc/loadavg is
// missing): benchmarks record it, since other jobs share the machine.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(fields[0], 64)
	return v
}

// procStatusMB reads a memory field of /proc/self/status ("VmRSS:",
// "VmHWM:") in MB.
func procStatusMB(field string) (float64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", field, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field)
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s %q: %w", field, rest, err)
		}
		return kb / 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", field, err)
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}
