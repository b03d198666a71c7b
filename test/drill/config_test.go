package drill

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// drillConfig sizes one drill.
type drillConfig struct {
	Mode          string        `json:"mode"`
	Events        int           `json:"events"`
	Clients       int           `json:"clients"`
	Batch         int           `json:"batch"`
	SendDuration  time.Duration `json:"send_duration_ns"`
	RedisOutage   time.Duration `json:"redis_outage_ns"`
	CHOutage      time.Duration `json:"clickhouse_outage_ns"`
	FaultGapMax   time.Duration `json:"fault_gap_max_ns"`
	SendDeadline  time.Duration `json:"send_deadline_ns"`  // how long a client retries one batch
	StoreDeadline time.Duration `json:"store_deadline_ns"` // how long acknowledged events may take to be stored
	Seed          int64         `json:"seed"`
}

func loadConfig(t *testing.T) drillConfig {
	c := drillConfig{Mode: "short", Events: 600, Clients: 4, Batch: 5,
		SendDuration: 30 * time.Second, RedisOutage: 5 * time.Second, CHOutage: 10 * time.Second,
		FaultGapMax: time.Second, SendDeadline: 3 * time.Minute, StoreDeadline: 3 * time.Minute,
		Seed: time.Now().UnixNano()}
	if os.Getenv("RECOLLECT_DRILL") == "full" {
		c.Mode, c.Events, c.Clients, c.Batch = "full", 10000, 8, 10
		c.SendDuration, c.RedisOutage, c.CHOutage = 6*time.Minute, 20*time.Second, 60*time.Second
		c.FaultGapMax, c.SendDeadline, c.StoreDeadline = 30*time.Second, 5*time.Minute, 10*time.Minute
	}
	if s := os.Getenv("RECOLLECT_DRILL_EVENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			t.Fatalf("RECOLLECT_DRILL_EVENTS=%q: want a number ≥ 10", s)
		}
		c.Events = n
	}
	if s := os.Getenv("RECOLLECT_DRILL_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("RECOLLECT_DRILL_SEED=%q: %v", s, err)
		}
		c.Seed = n
	}
	return c
}
