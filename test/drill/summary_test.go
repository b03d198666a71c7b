package drill

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// summary is the drill's result, printed and written as JSON for the docs.
type summary struct {
	Config  drillConfig      `json:"config"`
	Machine string           `json:"machine"`
	Started string           `json:"started"`
	Codes   map[string]int64 `json:"ingest_answers"`

	Sent       int               `json:"events_sent"`
	Acked      int               `json:"events_acked"`
	Unacked    int               `json:"events_unacked"`
	Stored     int               `json:"events_stored"`
	Duplicated int               `json:"events_duplicated"`
	Lost       int               `json:"events_lost"`
	ByType     map[string][3]int `json:"by_type_acked_stored_lost"`
	Attempts   int64             `json:"post_attempts"`
	Retries    int64             `json:"post_retries"`

	Memories    int `json:"memories"`
	Superseded  int `json:"memories_superseded"`
	Repeated    int `json:"memories_repeated"`
	MultiSource int `json:"memories_multi_source"`
	Foreign     int `json:"memories_without_drill_source"`

	Faults []fault `json:"faults"`
	// StartCrashes counts, per process, exits before ready on a restart
	// (a supervisor starts it again); a worker waits for its backends
	// instead, so any is a failure.
	StartCrashes map[string]int  `json:"start_crashes"`
	Consumers    []consumerState `json:"consumers"`
	DeadLetters  []deadLetter    `json:"dead_letters"`
	Unexplained  int             `json:"dead_letters_unexplained"`

	UsageRows    uint64  `json:"usage_rows_in_clickhouse"`
	UsageIDs     uint64  `json:"usage_distinct_ids_in_clickhouse"`
	UsageCalls   float64 `json:"usage_model_calls_counted"`
	UsageWritten float64 `json:"usage_written_counted"`
	UsageDropped float64 `json:"usage_dropped_counted"`
	// UsageUncounted is what the spools held at kill -9: replayed at the
	// restart, not lost.
	UsageUncounted float64 `json:"usage_buffered_at_kill"`

	SendSeconds   float64 `json:"send_s"`
	ChaosSeconds  float64 `json:"chaos_s"`
	StoreSeconds  float64 `json:"store_all_s"` // from the start until every acked event was stored
	SettleSeconds float64 `json:"settle_s"`    // until every consumer had nothing pending
	TotalSeconds  float64 `json:"total_s"`
}

func machine() string {
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs, %s, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpu, runtime.Version())
}

func (s *summary) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "drill (%s, seed %d) on %s\n", s.Config.Mode, s.Config.Seed, s.Machine)
	fmt.Fprintf(&b, "events: sent %d, acked %d, unacked %d, stored %d, duplicated %d, lost %d\n", s.Sent, s.Acked, s.Unacked, s.Stored, s.Duplicated, s.Lost)
	fmt.Fprintf(&b, "by type (acked, stored, lost): %v\n", s.ByType)
	fmt.Fprintf(&b, "ingest answers: %v (%d posts, %d retries)\n", s.Codes, s.Attempts, s.Retries)
	fmt.Fprintf(&b, "memories: %d (superseded %d, repeated %d, multi-source %d, foreign %d)\n", s.Memories, s.Superseded, s.Repeated, s.MultiSource, s.Foreign)
	fmt.Fprintf(&b, "faults (%d):\n", len(s.Faults))
	for _, f := range s.Faults {
		fmt.Fprintf(&b, "  %7.1fs  %-22s %-13s down %5.1fs  %s\n", f.AtSec, f.Kind, f.Target, f.DownS, f.Note)
	}
	fmt.Fprintf(&b, "exits before ready on restart (started again): %v\n", s.StartCrashes)
	fmt.Fprintf(&b, "dead letters: %d (unexplained %d)\n", len(s.DeadLetters), s.Unexplained)
	for _, d := range s.DeadLetters {
		fmt.Fprintf(&b, "  #%d %s %s (deliveries %s, event stored %v) [%s]: %s\n", d.Seq, d.Consumer, d.MsgID, d.Deliveries, d.Stored, d.Class, d.Reason)
	}
	fmt.Fprintf(&b, "usage: %.0f model calls counted; %d distinct ids (%d rows) in clickhouse; counted written %.0f, dropped %.0f, in spools at kill -9 (replayed) %.0f\n",
		s.UsageCalls, s.UsageIDs, s.UsageRows, s.UsageWritten, s.UsageDropped, s.UsageUncounted)
	fmt.Fprintf(&b, "durations: send %.1fs, chaos %.1fs, all stored at %.1fs, settled at %.1fs, total %.1fs\n", s.SendSeconds, s.ChaosSeconds, s.StoreSeconds, s.SettleSeconds, s.TotalSeconds)
	return b.String()
}

func (s *summary) write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
