package extract

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func turnEvent(id, role, content string, ts time.Time) *memory.Event {
	return &memory.Event{ID: id, Type: memory.EventTurn, Tenant: "acme", Namespace: "default", SessionID: "s1",
		Subject: "alice", Role: role, Content: content, TS: ts}
}

func TestSessionBuffer(t *testing.T) {
	var s session
	for i := range 10 {
		added, _ := s.add(turnEvent(fmt.Sprintf("t%d", i), "user", fmt.Sprintf("turn %d", i), t0.Add(time.Duration(i)*time.Second)), fmt.Sprintf("turn %d", i), t0, "me")
		if !added {
			t.Fatalf("turn %d not added", i)
		}
	}
	if added, _ := s.add(turnEvent("t3", "user", "turn 3", t0), "turn 3", t0, "me"); added {
		t.Fatal("a redelivered turn was added again")
	}
	msgs, upTo, ids := s.window(6)
	if len(msgs) != 10 || upTo != 10 || len(ids) != 10 {
		t.Fatalf("first window: %d messages up to %d", len(msgs), upTo)
	}
	s.done(upTo, 6)
	if len(s.Turns) != 6 || s.pending() != 0 {
		t.Fatalf("after done: %d turns, %d pending", len(s.Turns), s.pending())
	}
	// A late turn with an early timestamp goes in conversation order and is
	// still pending.
	s.add(turnEvent("late", "assistant", "late reply", t0.Add(8500*time.Millisecond)), "late reply", t0, "me")
	s.add(turnEvent("t10", "user", "turn 10", t0.Add(10*time.Second)), "turn 10", t0, "me")
	msgs, upTo, _ = s.window(6)
	if upTo != 12 {
		t.Fatalf("upTo = %d", upTo)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	want := "turn 6,turn 7,turn 8,late reply,turn 9,turn 10"
	if fmt.Sprint(len(got)) != "6" || joinComma(got) != want {
		t.Fatalf("window = %v, want %s", got, want)
	}
	if s.lastEvent() != "acme:t10" {
		t.Fatalf("last event = %s", s.lastEvent())
	}
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func TestSessionBufferBound(t *testing.T) {
	var s session
	dropped := 0
	for i := range maxBuffered + 7 {
		_, d := s.add(turnEvent(fmt.Sprintf("t%d", i), "user", "x", t0.Add(time.Duration(i))), "x", t0, "me")
		dropped += d
	}
	if len(s.Turns) != maxBuffered || dropped != 7 {
		t.Fatalf("%d turns kept, %d dropped", len(s.Turns), dropped)
	}
	if len(s.Seen) != seenCap {
		t.Fatalf("seen holds %d ids", len(s.Seen))
	}
}

func TestSessionDue(t *testing.T) {
	const debounce, failover = 5 * time.Second, 10 * time.Second
	for _, tc := range []struct {
		name    string
		turns   int
		owner   string
		retry   time.Time
		want    time.Time
		pending bool
	}{
		{name: "nothing pending", turns: 0},
		{name: "debounced", turns: 2, owner: "me", want: t0.Add(debounce), pending: true},
		{name: "full buffer at once", turns: 4, owner: "me", want: t0, pending: true},
		{name: "other replica waits to take over", turns: 2, owner: "other", want: t0.Add(debounce + failover), pending: true},
		{name: "retry backoff", turns: 2, owner: "me", retry: t0.Add(time.Minute), want: t0.Add(time.Minute), pending: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s session
			for i := range tc.turns {
				s.add(turnEvent(fmt.Sprintf("t%d", i), "user", "x", t0), "x", t0, tc.owner)
			}
			s.NotBefore = tc.retry
			due, pending := s.due(debounce, failover, 4, "me")
			if pending != tc.pending || !due.Equal(tc.want) {
				t.Fatalf("due = %s %v, want %s %v", due, pending, tc.want, tc.pending)
			}
		})
	}
}

// TestSchedulerDebounce drives the schedule with a fake clock: a session
// runs only once due, once at a time, and a newer state moves it.
func TestSchedulerDebounce(t *testing.T) {
	clock := newFakeClock()
	var runs atomic.Int32
	release := make(chan struct{})
	s := newScheduler(clock.Now, 4, func(ctx context.Context, key string) time.Time {
		runs.Add(1)
		<-release
		return time.Time{}
	}, nil)
	ctx := context.Background()
	s.set("k", 1, true, t0.Add(5*time.Second))
	clock.Add(4 * time.Second)
	if n := s.runDue(ctx); n != 0 {
		t.Fatalf("ran %d sessions before the debounce ended", n)
	}
	s.set("k", 2, true, t0.Add(9*time.Second)) // another turn at +4s
	s.set("k", 1, true, t0.Add(5*time.Second)) // a late, older state: ignored
	clock.Add(2 * time.Second)
	if n := s.runDue(ctx); n != 0 {
		t.Fatal("ran before the moved debounce ended")
	}
	clock.Add(3 * time.Second)
	if n := s.runDue(ctx); n != 1 {
		t.Fatalf("started %d runs when due", n)
	}
	if n := s.runDue(ctx); n != 0 {
		t.Fatal("started a second run of a running session")
	}
	s.set("k", 3, false, time.Time{}) // the run recorded its extraction
	close(release)
	if err := s.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.snapshot("k"); ok || runs.Load() != 1 {
		t.Fatalf("entry kept after its run (runs = %d)", runs.Load())
	}
}

func TestSchedulerRetry(t *testing.T) {
	clock := newFakeClock()
	s := newScheduler(clock.Now, 1, func(ctx context.Context, key string) time.Time {
		return clock.Now().Add(2 * time.Second) // lease held elsewhere
	}, nil)
	s.set("k", 1, true, t0)
	s.runDue(context.Background())
	if err := s.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	e, ok := s.snapshot("k")
	if !ok || !e.due.Equal(t0.Add(2*time.Second)) || e.running {
		t.Fatalf("entry after a held lease: %+v %v", e, ok)
	}
	s.forget("k")
	if _, ok := s.snapshot("k"); ok {
		t.Fatal("forgotten session still scheduled")
	}
}

func TestStyleReinforcement(t *testing.T) {
	var s styles
	if !s.observe("style/terse", "Keeps messages short", 0.6, t0, "e1") {
		t.Fatal("new observation not recorded")
	}
	if s.observe("style/terse", "Writes tersely", 0.9, t0.Add(time.Hour), "e1") {
		t.Fatal("the same event reinforced twice")
	}
	s.observe("style/terse", "Writes tersely", 0.9, t0.Add(time.Hour), "e2")
	s.observe("style/terse", "Short again", 0.9, t0.Add(2*time.Hour), "e3")
	o := s.Obs[0]
	want := 0.6
	for range 2 {
		want += (1 - want) * 0.2
	}
	if o.Count != 3 || o.Value != "Keeps messages short" || math.Abs(o.Confidence-want) > 1e-9 || !o.Last.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("reinforced = %+v, want count 3, first value, confidence %.4f", o, want)
	}
	s.observe("style/emoji", "Uses emoji", 0.6, t0, "e4")
	// Lifespan is count × 14 days from the last reinforcement.
	if n := s.decay(t0.Add(14*24*time.Hour - time.Second)); n != 0 {
		t.Fatalf("decayed %d before the lifespan", n)
	}
	if n := s.decay(t0.Add(14 * 24 * time.Hour)); n != 1 || s.Obs[0].Key != "style/terse" {
		t.Fatalf("decay at 14 days dropped %d: %+v", n, s.Obs)
	}
	if n := s.decay(t0.Add(2*time.Hour + 42*24*time.Hour)); n != 1 || len(s.Obs) != 0 {
		t.Fatalf("count 3 outlived 42 days: %+v", s.Obs)
	}
}

func TestStyleStrongest(t *testing.T) {
	var s styles
	for i := range 20 {
		for j := range i%4 + 1 {
			s.observe(fmt.Sprintf("style/k%02d", i), "v", 0.6, t0, fmt.Sprintf("e%d", j))
		}
	}
	top := s.strongest(maxDirectiveObs)
	if len(top) != 15 || top[0].Count != 4 || top[14].Count < top[len(top)-1].Count {
		t.Fatalf("strongest = %+v", top)
	}
	for i := 1; i < len(top); i++ {
		if top[i].Count > top[i-1].Count {
			t.Fatal("not ordered by count")
		}
	}
	a, b := fingerprint(top), fingerprint(s.strongest(maxDirectiveObs))
	if a != b {
		t.Fatal("fingerprint not stable")
	}
	s.observe("style/k00", "v", 0.6, t0, "new")
	if fingerprint(s.strongest(maxDirectiveObs)) == a {
		t.Fatal("fingerprint did not change with a reinforcement")
	}
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		typ, key, value string
		wantType        memory.Type
		wantKey         string
	}{
		{"preference", "preference/indentation", "x", memory.TypePreference, "preference/indentation"},
		{"Preferences", "Code_Style", "x", memory.TypePreference, "preference/code-style"},
		{"", "person/sarah", "Sarah is the lead", memory.TypeEntity, "person/sarah"},
		{"profile", "", "Alice works at Globex as SRE", memory.TypeEntity, "entity/alice-works-globex-sre"},
		{"style", "humor-dry", "Dry humour", memory.TypeStyle, "style/humor-dry"},
		{"style", "preference/terse", "Terse", memory.TypeStyle, "style/terse"},
		{"artifact", "landing-copy", "Hero copy", memory.TypeArtifact, "artifact/landing-copy"},
		{"procedure", "deploy", "Deploy with make deploy", memory.TypeWorkflow, "workflow/deploy"},
		{"gossip", "", "The build takes ten minutes", memory.TypeFact, "fact/build-takes-ten-minutes"},
		{"rule", "secrets", "Never commit secrets", memory.TypePolicy, "policy/secrets"},
	} {
		typ := normType(tc.typ, tc.key)
		if typ != tc.wantType {
			t.Errorf("normType(%q, %q) = %s, want %s", tc.typ, tc.key, typ, tc.wantType)
		}
		if k := normKey(tc.key, typ, tc.value); k != tc.wantKey {
			t.Errorf("normKey(%q) = %q, want %q", tc.key, k, tc.wantKey)
		}
	}
	yes, no := true, false
	if confidenceOf(&yes) != 0.9 || confidenceOf(&no) != 0.6 || confidenceOf(nil) != 0.75 {
		t.Fatal("confidence mapping")
	}
	if normKind("procedural", memory.TypeFact) != memory.KindProcedural || normKind("nonsense", memory.TypeWorkflow) != memory.KindProcedural {
		t.Fatal("kind mapping")
	}
	tags := limitTags([]string{"Go", "go", "", "a-tag-that-is-much-longer-than-thirty-two-characters", "ok"})
	if joinComma(tags) != "go,ok" {
		t.Fatalf("tags = %v", tags)
	}
}
