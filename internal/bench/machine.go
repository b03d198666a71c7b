package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
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

// cpuTicks are the machine's CPU time counters (the first line of
// /proc/stat, in ticks): all of them, and steal, the time the hypervisor
// ran other guests on this guest's CPUs.
type cpuTicks struct{ total, steal uint64 }

// readCPUTicks reads the counters; zero where /proc/stat is missing.
func readCPUTicks() cpuTicks {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTicks{}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return cpuTicks{}
	}
	var t cpuTicks
	// user nice system idle iowait irq softirq steal [guest guest_nice]:
	// guest time is already counted in user.
	for i, f := range fields[1:9] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return cpuTicks{}
		}
		t.total += v
		if i == 7 {
			t.steal = v
		}
	}
	return t
}

// since is the counters' growth from before.
func (t cpuTicks) since(before cpuTicks) cpuTicks {
	if t.total < before.total || t.steal < before.steal {
		return cpuTicks{}
	}
	return cpuTicks{total: t.total - before.total, steal: t.steal - before.steal}
}

// stealShare is steal over all ticks, 0 when none passed.
func (t cpuTicks) stealShare() float64 {
	if t.total == 0 {
		return 0
	}
	return float64(t.steal) / float64(t.total)
}

// Machine is what every benchmark records about where it ran.
type Machine struct {
	CPU        string  `json:"cpu"`
	CPUs       int     `json:"cpus"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	GoVersion  string  `json:"go_version"`
	OS         string  `json:"os"`
	Arch       string  `json:"arch"`
	LoadAvg1m  float64 `json:"load_avg_1m"`
}

// ThisMachine describes the machine now (the load average changes).
func ThisMachine() Machine {
	return Machine{CPU: cpuModel(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, LoadAvg1m: loadAverage()}
}

func (m Machine) String() string {
	return fmt.Sprintf("%s, %d CPUs (GOMAXPROCS %d), %s %s/%s, load %.2f", m.CPU, m.CPUs, m.GOMAXPROCS, m.GoVersion, m.OS, m.Arch, m.LoadAvg1m)
}

// cpuModel is the first "model name" of /proc/cpuinfo ("unknown" elsewhere).
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
