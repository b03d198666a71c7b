package drill

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
)

// fault is one injected failure, as the summary reports it.
type fault struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	AtSec  float64 `json:"at_s"`   // since the drill started
	DownS  float64 `json:"down_s"` // until the target was back
	Note   string  `json:"note,omitempty"`
}

// chaos injects the faults in a random order at random moments, from the
// test goroutine (starts wait on readiness and may fail the test).
type chaos struct {
	t      *testing.T
	d      *deployment
	cfg    drillConfig
	rng    *rand.Rand
	start  time.Time
	faults []fault
	// usage accumulates what killed processes had counted before the kill.
	usage          usageSample
	usageUncounted float64 // records pending in a buffer at kill -9
	restarts       []pendingRestart
}

type pendingRestart struct {
	at    time.Time
	index int // into faults
	up    func()
}

func (c *chaos) since() float64 { return time.Since(c.start).Seconds() }

// plan is every fault of the drill, shuffled; the NATS node kill comes
// before the stream leader kill.
func (c *chaos) plan() []func() {
	var acts []func()
	for _, w := range workers {
		for range 2 {
			acts = append(acts, func() { c.killProc(w) })
		}
	}
	acts = append(acts, func() { c.killProc("store") }, c.redisOutage, c.clickHouseOutage)
	c.rng.Shuffle(len(acts), func(i, j int) { acts[i], acts[j] = acts[j], acts[i] })
	// The two NATS faults at random places, the node first.
	i := c.rng.IntN(len(acts) + 1)
	acts = append(acts[:i], append([]func(){c.killNATSNode}, acts[i:]...)...)
	j := i + 1 + c.rng.IntN(len(acts)-i)
	acts = append(acts[:j], append([]func(){c.killNATSLeader}, acts[j:]...)...)
	return acts
}

func (c *chaos) run() {
	for _, act := range c.plan() {
		c.sleep(time.Duration(c.rng.Int64N(int64(c.cfg.FaultGapMax) + 1)))
		act()
	}
	for len(c.restarts) > 0 {
		c.sleep(50 * time.Millisecond)
	}
}

// sleep waits d, bringing back outages that are due meanwhile.
func (c *chaos) sleep(d time.Duration) {
	end := time.Now().Add(d)
	for {
		c.dueRestarts()
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, 50*time.Millisecond))
	}
}

func (c *chaos) dueRestarts() {
	kept := c.restarts[:0]
	for _, r := range c.restarts {
		if time.Now().Before(r.at) {
			kept = append(kept, r)
			continue
		}
		r.up()
		c.faults[r.index].DownS = c.since() - c.faults[r.index].AtSec
		c.t.Logf("drill %6.1fs: %s %s back", c.since(), c.faults[r.index].Kind, c.faults[r.index].Target)
	}
	c.restarts = kept
}

func (c *chaos) record(kind, target, note string) int {
	c.faults = append(c.faults, fault{Kind: kind, Target: target, AtSec: c.since(), Note: note})
	c.t.Logf("drill %6.1fs: %s %s %s", c.since(), kind, target, note)
	return len(c.faults) - 1
}

// killProc SIGKILLs a worker (or the store) and starts it again after a
// random pause; its usage counters are read just before.
func (c *chaos) killProc(name string) {
	if u, err := c.d.usage(name); err == nil {
		c.usage.Written += u.Written
		c.usage.Dropped += u.Dropped
		c.usageUncounted += u.Pending
	} else {
		c.t.Logf("drill: usage of %s before kill: %v", name, err)
	}
	i := c.record("kill -9", name, "")
	p := c.d.procs[name]
	p.stop(syscall.SIGKILL)
	c.sleep(time.Duration(c.rng.Int64N(int64(time.Second))))
	p.start(c.t)
	c.faults[i].DownS = c.since() - c.faults[i].AtSec
}

func (c *chaos) killNATSNode() {
	leader := c.leader()
	var idx []int
	for i := range c.d.nats.Size() {
		if c.d.nats.NodeName(i) != leader {
			idx = append(idx, i)
		}
	}
	n := idx[c.rng.IntN(len(idx))]
	c.bounceNATS(n, "kill -9 nats node", fmt.Sprintf("not the %s leader (%s)", bus.StreamConv, leader))
}

func (c *chaos) killNATSLeader() {
	leader := c.leader()
	n := c.d.nats.NodeIndex(leader)
	if n < 0 {
		c.t.Fatalf("stream leader %q is not a node of the cluster", leader)
	}
	c.bounceNATS(n, "kill -9 stream leader", "leader of "+bus.StreamConv)
	after := c.leader()
	c.faults[len(c.faults)-1].Note += ", new leader " + after
}

func (c *chaos) leader() string {
	var leader string
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l, err := c.d.streamLeader(ctx, bus.StreamConv)
		cancel()
		if err == nil {
			leader = l
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("find the stream leader: %v", err)
		}
		c.sleep(200 * time.Millisecond)
	}
	return leader
}

func (c *chaos) bounceNATS(n int, kind, note string) {
	i := c.record(kind, c.d.nats.NodeName(n), note)
	c.d.nats.Kill(c.t, n)
	c.sleep(time.Duration(1+c.rng.Int64N(3)) * time.Second)
	c.d.nats.Start(c.t, n)
	c.faults[i].DownS = c.since() - c.faults[i].AtSec
}

func (c *chaos) redisOutage() {
	i := c.record("stop", "redis", fmt.Sprintf("for %s", c.cfg.RedisOutage))
	c.d.redis.Stop(c.t)
	c.restarts = append(c.restarts, pendingRestart{at: time.Now().Add(c.cfg.RedisOutage), index: i, up: func() { c.d.redis.Start(c.t) }})
}

func (c *chaos) clickHouseOutage() {
	i := c.record("stop", "clickhouse", fmt.Sprintf("for %s", c.cfg.CHOutage))
	c.d.ch.Stop(c.t)
	c.restarts = append(c.restarts, pendingRestart{at: time.Now().Add(c.cfg.CHOutage), index: i, up: func() { c.d.ch.Start(c.t) }})
}
