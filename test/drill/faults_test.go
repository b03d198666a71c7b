package drill

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
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

	outages    sync.WaitGroup
	mu         sync.Mutex // faults and outageErrs, also written by outages
	outageErrs []error
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
		time.Sleep(time.Duration(c.rng.Int64N(int64(c.cfg.FaultGapMax) + 1)))
		act()
	}
	c.outages.Wait()
	for _, err := range c.outageErrs {
		c.t.Error(err)
	}
}

// outage stops a server now and starts it again after d, in the
// background: the other faults go on meanwhile (a worker restarted while
// Redis is down waits for it to be ready).
func (c *chaos) outage(target string, d time.Duration, stop func(), start func() error) {
	i := c.record("stop", target, fmt.Sprintf("for %s", d))
	stop()
	c.outages.Add(1)
	go func() {
		defer c.outages.Done()
		time.Sleep(d)
		err := start()
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			c.outageErrs = append(c.outageErrs, fmt.Errorf("bring %s back: %w", target, err))
			return
		}
		c.faults[i].DownS = c.since() - c.faults[i].AtSec
		c.t.Logf("drill %6.1fs: %s back", c.since(), target)
	}()
}

func (c *chaos) record(kind, target, note string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = append(c.faults, fault{Kind: kind, Target: target, AtSec: c.since(), Note: note})
	c.t.Logf("drill %6.1fs: %s %s %s", c.since(), kind, target, note)
	return len(c.faults) - 1
}

// killProc SIGKILLs a worker (or the store) and starts it again after a
// random pause; its usage counters are read just before.
func (c *chaos) killProc(name string) {
	if u, err := c.d.usage(name); err == nil {
		c.usage.Calls += u.Calls
		c.usage.Written += u.Written
		c.usage.Dropped += u.Dropped
		c.usageUncounted += u.Pending
	} else {
		c.t.Logf("drill: usage of %s before kill: %v", name, err)
	}
	i := c.record("kill -9", name, "")
	p := c.d.procs[name]
	p.stop(syscall.SIGKILL)
	time.Sleep(time.Duration(c.rng.Int64N(int64(time.Second))))
	p.start(c.t)
	c.done(i)
}

// done records that fault i's target is back.
func (c *chaos) done(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
	c.mu.Lock()
	c.faults[len(c.faults)-1].Note += ", new leader " + after
	c.mu.Unlock()
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
		time.Sleep(200 * time.Millisecond)
	}
	return leader
}

func (c *chaos) bounceNATS(n int, kind, note string) {
	i := c.record(kind, c.d.nats.NodeName(n), note)
	c.d.nats.Kill(c.t, n)
	time.Sleep(time.Duration(1+c.rng.Int64N(3)) * time.Second)
	c.d.nats.Start(c.t, n)
	c.done(i)
}

func (c *chaos) redisOutage() {
	c.outage("redis", c.cfg.RedisOutage, func() { c.d.redis.Stop(c.t) }, c.d.redis.Restart)
}

func (c *chaos) clickHouseOutage() {
	c.outage("clickhouse", c.cfg.CHOutage, func() { c.d.ch.Stop(c.t) }, c.d.ch.Restart)
}
