package drill

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestChaosDrill runs the drill; see the package comment for its sizes.
func TestChaosDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos drill starts a NATS cluster, Redis, ClickHouse and seven processes; skipped with -short")
	}
	cfg := loadConfig(t)
	t.Logf("drill config: %+v", cfg)
	d := deploy(t)
	sum := &summary{Config: cfg, Machine: machine(), Started: time.Now().UTC().Format(time.RFC3339), Sent: cfg.Events}
	start := time.Now()
	since := func() float64 { return time.Since(start).Seconds() }

	// Streams are R3 before anything is sent.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if _, err := d.streamLeader(ctx, "RECOLLECT_CONV"); err != nil {
		t.Fatal(err)
	}
	cancel()

	s := newSender(d.procs["ingest"].url(), cfg)
	sendCtx, stopSend := context.WithCancel(context.Background())
	defer stopSend()
	sent := make(chan float64)
	go func() { s.run(sendCtx); sent <- since() }()

	ch := &chaos{t: t, d: d, cfg: cfg, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 1)), start: start}
	ch.run()
	sum.ChaosSeconds = since()
	sum.SendSeconds = <-sent
	sum.Faults = ch.faults
	sum.StartCrashes = map[string]int{}
	for name, p := range d.procs {
		if p.crashes > 0 {
			sum.StartCrashes[name] = p.crashes
			t.Errorf("%s exited %d times before it was ready: a worker must wait for its backends, not crash-loop", name, p.crashes)
		}
	}
	sum.Codes, sum.Attempts, sum.Retries = s.codeCounts(), s.attempts.Load(), s.retries.Load()
	if s.fatal != nil {
		t.Fatal(s.fatal)
	}

	// Every acknowledged event stored: poll until each has a memory.
	acked := make([]bool, cfg.Events)
	for i := range acked {
		acked[i] = s.acked[i].Load()
		if acked[i] {
			sum.Acked++
		}
	}
	sum.Unacked = cfg.Events - sum.Acked
	var st *storage
	deadline := time.Now().Add(cfg.StoreDeadline)
	for {
		lctx, lcancel := context.WithTimeout(context.Background(), time.Minute)
		got, err := listAll(lctx, d.procs["query"].url(), cfg.Events)
		lcancel()
		missing := 0
		if err == nil {
			st = got
			for i, a := range acked {
				if a && (len(st.bySource[i]) == 0 || eventType(i) != "memory" && len(st.saidBySource[i]) == 0) {
					missing++
				}
			}
			if missing == 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Logf("drill: %d acknowledged events still not stored after %s (last error %v)", missing, cfg.StoreDeadline, err)
			break
		}
		time.Sleep(time.Second)
	}
	if st == nil {
		t.Fatalf("the memories could not be listed")
	}
	sum.StoreSeconds = since()

	// No consumer stuck: every backlog drains within the deadline.
	deadline = time.Now().Add(cfg.StoreDeadline)
	lastLog := time.Now()
	for {
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := consumers(cctx, d)
		ccancel()
		stuck := 0
		if err == nil {
			sum.Consumers = cs
			for _, c := range cs {
				if c.Pending > 0 || c.AckPending > 0 {
					stuck++
				}
			}
			if stuck == 0 && len(cs) > 0 {
				break
			}
		}
		if stuck > 0 && time.Since(lastLog) > 15*time.Second {
			lastLog = time.Now()
			for _, c := range sum.Consumers {
				if c.Pending > 0 || c.AckPending > 0 {
					t.Logf("drill %6.1fs: consumer %s/%s pending %d ack-pending %d redelivered %d", since(), c.Stream, c.Consumer, c.Pending, c.AckPending, c.Redelivered)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("consumers still have pending messages after %s: %+v (last error %v)", cfg.StoreDeadline, sum.Consumers, err)
			break
		}
		time.Sleep(time.Second)
	}
	sum.SettleSeconds = since()
	// The backlog drained, the final listing counts what is stored.
	lctx, lcancel := context.WithTimeout(context.Background(), time.Minute)
	if got, err := listAll(lctx, d.procs["query"].url(), cfg.Events); err == nil {
		st = got
	} else {
		t.Errorf("final listing: %v", err)
	}
	lcancel()
	sum.ByType = map[string][3]int{}
	for i := range cfg.Events {
		n := len(st.bySource[i])
		bt := sum.ByType[eventType(i)]
		if acked[i] {
			bt[0]++
		}
		if n > 0 {
			sum.Stored++
			bt[1]++
		}
		said := st.saidBySource[i]
		if n > 1 || (n == 1 && st.bySource[i][0].RepetitionCount > 1) || len(said) > 1 || (len(said) == 1 && said[0].RepetitionCount > 1) {
			sum.Duplicated++
			if sum.Duplicated <= 10 {
				t.Errorf("event ev-%05d stored %d times as facts, %d as said", i, n, len(said))
			}
		}
		if eventType(i) != "memory" && acked[i] && len(said) != 1 && sum.Lost < 10 {
			t.Errorf("conversation event ev-%05d (%s) kept as said %d times, want once", i, eventType(i), len(said))
		}
		if acked[i] && n == 0 {
			sum.Lost++
			bt[2]++
			if sum.Lost <= 10 {
				t.Errorf("acknowledged event ev-%05d (%s) lost", i, eventType(i))
			}
		}
		sum.ByType[eventType(i)] = bt
	}
	sum.Memories, sum.Superseded, sum.Repeated, sum.MultiSource, sum.Foreign = st.memories, st.superseded, st.repeated, st.multiSource, st.foreign

	// Dead letters, each explained.
	// Asked again while JetStream does not answer: the drill's last fault
	// may have been the stream leader's (or the meta leader's) kill, and on
	// a loaded machine an API request in flight at the failover can wait
	// out its whole context (seen once: a single one-minute try expired).
	var dls []deadLetter
	var err error
	for deadline := time.Now().Add(3 * time.Minute); ; {
		dctx, dcancel := context.WithTimeout(context.Background(), 15*time.Second)
		dls, err = deadLetters(dctx, d, st, cfg.Events)
		dcancel()
		if err == nil || time.Now().After(deadline) {
			break
		}
		t.Logf("read dead letters: %v; asking again", err)
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Errorf("read dead letters: %v", err)
	}
	sum.DeadLetters = dls
	for _, dl := range dls {
		if dl.Class == "unexplained" {
			sum.Unexplained++
			t.Errorf("unexplained dead letter #%d from %s: %s", dl.Seq, dl.Consumer, dl.Reason)
		}
	}

	// Usage: every model call's record in ClickHouse (once per id), or
	// counted as dropped; records spooled at a kill -9 are replayed.
	sum.UsageCalls, sum.UsageWritten, sum.UsageDropped, sum.UsageUncounted = ch.usage.Calls, ch.usage.Written, ch.usage.Dropped, ch.usageUncounted
	deadline = time.Now().Add(time.Minute)
	for {
		var calls, w, dr, pend float64
		var err error
		for _, name := range append([]string{"store"}, workers...) {
			u, uerr := d.usage(name)
			if uerr != nil {
				err = uerr
			}
			calls, w, dr, pend = calls+u.Calls, w+u.Written, dr+u.Dropped, pend+u.Pending
		}
		if err == nil && pend == 0 {
			sum.UsageCalls += calls
			sum.UsageWritten += w
			sum.UsageDropped += dr
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("usage buffers not flushed within a minute: pending %.0f (last error %v)", pend, err)
			sum.UsageCalls += calls
			sum.UsageWritten += w
			sum.UsageDropped += dr
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	uctx, ucancel := context.WithTimeout(context.Background(), 30*time.Second)
	rows, ids, err := usageRows(uctx, d.ch.DSN())
	ucancel()
	if err != nil {
		t.Errorf("count usage rows: %v", err)
	}
	sum.UsageRows, sum.UsageIDs = rows, ids
	// Calls made between a kill's metrics sample and the kill are not in
	// UsageCalls, so the check is a lower bound: fewer ids than calls not
	// dropped means records were lost.
	if lost := sum.UsageCalls - sum.UsageDropped - float64(ids); lost > 0 {
		t.Errorf("usage records lost: %.0f model calls counted, %.0f dropped, only %d distinct ids in clickhouse", sum.UsageCalls, sum.UsageDropped, ids)
	}
	if rows == 0 {
		t.Errorf("no usage rows in clickhouse")
	}
	sum.TotalSeconds = since()

	t.Log("\n" + sum.text())
	path := os.Getenv("RECOLLECT_DRILL_JSON")
	if path == "" {
		path = filepath.Join(t.TempDir(), "drill.json")
	}
	if err := sum.write(path); err != nil {
		t.Errorf("write summary: %v", err)
	} else {
		t.Logf("summary written to %s", path)
	}
	if sum.Lost > 0 || sum.Duplicated > 0 {
		t.Errorf("%d lost, %d duplicated of %d acknowledged events", sum.Lost, sum.Duplicated, sum.Acked)
	}
	if sum.Acked < cfg.Events {
		t.Logf("%d events were never acknowledged within %s of retries", sum.Unacked, cfg.SendDeadline)
	}

}
