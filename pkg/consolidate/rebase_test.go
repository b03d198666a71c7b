package consolidate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// explicitFixture is a fixture triaging at once, holding one explicit
// fact said once (by event ev-1), which an epoch promotes to working.
func explicitFixture(t *testing.T, content string) (*fixture, memory.Memory) {
	f := newFixture(t, "", func(c *Config) { c.Rules.TriageMinAge = 0 })
	m := f.mem(content, memory.TypeFact, memory.SourceAPI)
	m.Confidence = memory.ConfidenceExplicit
	m.RepetitionCount = 1
	m.AddSource("ev-1")
	f.put(t, m)
	return f, m
}

// reinforceBeforeWrite makes the next payload write of the epoch find id
// reinforced (by event ev-2) just before it: a writer slipping in between
// the commit's read and its write.
func (f *fixture) reinforceBeforeWrite(t *testing.T, id string) {
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	f.st.beforeWrite = func() {
		cur := f.get(t, id)
		cur.RepetitionCount++
		cur.AddSource("ev-2")
		if err := f.st.Store.Upsert(t.Context(), []memory.Memory{cur}); err != nil {
			t.Error(err)
		}
	}
}

// A reinforcement acknowledged while an epoch runs survives the epoch's
// write, and the epoch's promotion survives the reinforcement.
func TestEpochKeepsWritesMadeWhileItRan(t *testing.T) {
	f, m := explicitFixture(t, "The user asked to remember: the staging database is db-stage-2.")
	if stored := f.get(t, m.ID); !stored.Explicit() {
		t.Fatal("fixture memory is not explicit")
	}
	later := f.clock.now().Add(time.Second)
	f.st.mu.Lock()
	f.st.afterScroll = func() {
		// The embedder's reinforce, between the epoch's read and write.
		cur := f.get(t, m.ID)
		cur.RepetitionCount++
		cur.AddSource("ev-2")
		cur.ModifiedAt = later
		if err := f.st.Store.Upsert(t.Context(), []memory.Memory{cur}); err != nil {
			t.Error(err)
		}
	}
	f.st.mu.Unlock()
	ev := f.epoch(t)
	got := f.get(t, m.ID)
	if got.Layer != memory.LayerWorking {
		t.Errorf("layer %s after the epoch, want working (the epoch's promotion lost); event %+v", got.Layer, ev)
	}
	if got.RepetitionCount != 2 || !got.HasSource("ev-2") || !got.ModifiedAt.Equal(later) {
		t.Errorf("reinforcement lost to the epoch: count %d sources %v modified %s", got.RepetitionCount, got.SourceIDs, got.ModifiedAt)
	}
}

// A write slipping in between the commit's read and its write loses
// nothing either: the conditional write fails, and the epoch reads and
// rebases the memory again.
func TestEpochLosesNoRaceAtCommit(t *testing.T) {
	f, m := explicitFixture(t, "The user asked to remember: the deploy window is Tuesday 14:00.")
	f.reinforceBeforeWrite(t, m.ID)
	f.epoch(t)
	got := f.get(t, m.ID)
	if got.Layer != memory.LayerWorking || got.RepetitionCount != 2 || !got.HasSource("ev-2") {
		t.Fatalf("after a race at commit: layer %s count %d sources %v (want working, 2, ev-2 kept)", got.Layer, got.RepetitionCount, got.SourceIDs)
	}
	if len(got.Vector) == 0 {
		t.Fatal("the rewrite after the lost race dropped the vector")
	}
}

// The same in a large epoch, whose commit reads the changed memories back
// in one scroll with their revisions.
func TestLargeEpochLosesNoRaceAtCommit(t *testing.T) {
	f, m := explicitFixture(t, "The user asked to remember: the release train leaves on Thursdays.")
	var more []memory.Memory
	for i := range rebaseGets + 50 {
		o := f.mem(fmt.Sprintf("The user asked to remember: service %d is owned by team %d.", i, i%7), memory.TypeFact, memory.SourceAPI)
		o.Confidence = memory.ConfidenceExplicit
		more = append(more, o)
	}
	f.put(t, more...)
	f.reinforceBeforeWrite(t, m.ID)
	f.epoch(t)
	got := f.get(t, m.ID)
	if got.Layer != memory.LayerWorking || got.RepetitionCount != 2 || !got.HasSource("ev-2") {
		t.Fatalf("after a race at a large commit: layer %s count %d sources %v (want working, 2, ev-2 kept)", got.Layer, got.RepetitionCount, got.SourceIDs)
	}
	stuck := 0
	for _, o := range more {
		if g := f.get(t, o.ID); g.Layer != memory.LayerWorking || len(g.Vector) == 0 {
			stuck++
			if stuck < 4 {
				by := f.get(t, g.SupersededBy)
				t.Errorf("%q: layer %s, superseded by %q", g.Content, g.Layer, by.Content)
			}
		}
	}
	if stuck > 0 {
		for _, op := range f.journal.ops("", "supersede") {
			t.Logf("%s %s %v: %s (%s)", op.Phase, op.Op, op.MemoryIDs, op.Reason, op.Decider)
			break
		}
		t.Fatalf("%d of %d not promoted", stuck, len(more))
	}
}

func TestRebase(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	before := memory.Memory{ID: "m", Content: "c", Layer: memory.LayerBuffer, Importance: 0.5, RepetitionCount: 2,
		AccessCount: 1, Tags: []string{"a", "_triaged"}, SourceIDs: []string{"e1"}, ModifiedAt: t0, Epoch: 3}
	t.Run("untouched by others", func(t *testing.T) {
		mine := before.Clone()
		mine.Layer = memory.LayerWorking
		got, moved := rebase(before, mine, before.Clone())
		if moved || !reflect.DeepEqual(got, mine) {
			t.Fatalf("moved %v, got %+v", moved, got)
		}
	})
	t.Run("both changed", func(t *testing.T) {
		mine := before.Clone()
		mine.Layer, mine.Importance, mine.Epoch = memory.LayerWorking, 0.4, 4
		mine.Tags = []string{"a", "promoted"} // _triaged removed, promoted added
		mine.RepetitionCount = 3              // a fold added one
		mine.ModifiedAt = t0.Add(time.Minute)
		cur := before.Clone()
		cur.RepetitionCount, cur.AccessCount = 4, 5
		cur.Tags = []string{"a", "_triaged", "user-tag"}
		cur.SourceIDs = []string{"e1", "e2"}
		cur.ModifiedAt = t0.Add(2 * time.Minute)
		cur.Quarantine = "operator"
		got, moved := rebase(before, mine, cur)
		if !moved {
			t.Fatal("not moved")
		}
		if got.Layer != memory.LayerWorking || got.Importance != 0.4 || got.Epoch != 4 {
			t.Errorf("epoch's decisions lost: %+v", got)
		}
		if got.RepetitionCount != 5 || got.AccessCount != 5 {
			t.Errorf("counts %d %d, want 5 5", got.RepetitionCount, got.AccessCount)
		}
		if !slices.Equal(got.Tags, []string{"a", "user-tag", "promoted"}) || !slices.Equal(got.SourceIDs, []string{"e1", "e2"}) {
			t.Errorf("tags %v sources %v", got.Tags, got.SourceIDs)
		}
		if !got.ModifiedAt.Equal(t0.Add(2*time.Minute)) || got.Quarantine != "operator" {
			t.Errorf("modified %s quarantine %q", got.ModifiedAt, got.Quarantine)
		}
	})
	t.Run("revived while superseded", func(t *testing.T) {
		mine := before.Clone()
		mine.Supersede("newer", t0, t0)
		cur := before.Clone()
		cur.Archived = false
		cur.ValidFrom = t0.Add(time.Hour) // said again: valid again from then
		got, _ := rebase(before, mine, cur)
		if got.Superseded() || !got.ValidFrom.Equal(t0.Add(time.Hour)) {
			t.Errorf("the revival lost to the epoch's supersession: %+v", got)
		}
		got, _ = rebase(before, mine, before.Clone())
		if !got.Superseded() {
			t.Error("supersession lost when no one else wrote")
		}
	})
}

// same must notice a change in any field a writer may make: a field added
// to memory.Memory and not compared would let an epoch overwrite it.
func TestSameSeesEveryField(t *testing.T) {
	skip := map[string]bool{"ID": true, "Tenant": true, "Vector": true, "ChunkVectors": true}
	base := memory.Memory{}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if skip[name] {
			continue
		}
		m := base
		v := reflect.ValueOf(&m).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Int, reflect.Int64:
			v.SetInt(1)
		case reflect.Float64:
			v.SetFloat(1)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.ValueOf("x")))
		case reflect.Pointer:
			now := time.Unix(1, 0)
			v.Set(reflect.ValueOf(&now))
		case reflect.Struct:
			v.Set(reflect.ValueOf(time.Unix(1, 0)))
		default:
			t.Fatalf("field %s of kind %s: teach this test", name, v.Kind())
		}
		if same(base, m) {
			t.Errorf("same misses a change of %s", name)
		}
	}
}

// A request arriving while another epoch of its tenant holds the lease
// waits for it and then runs, instead of using up its deliveries and
// being dead-lettered.
func TestRequestWaitsForARunningEpoch(t *testing.T) {
	f, m := explicitFixture(t, "The user asked to remember: the on-call rotation starts on Mondays.")
	held, err := f.locks.Acquire(t.Context(), "consolidate:"+tenant, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(memory.ConsolidateRequest{Tenant: tenant, ID: "asked-while-held"})
	done := make(chan error, 1)
	go func() { done <- f.c.Handle(t.Context(), &bus.Delivery{Data: data, NumDelivered: 1}) }()
	select {
	case err := <-done:
		t.Fatalf("the request returned while the lease was held: %v", err)
	case <-time.After(3 * heldPoll):
	}
	if err := held.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the request after the lease was freed: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the request did not run after the lease was freed")
	}
	if got := f.get(t, m.ID); got.Layer != memory.LayerWorking {
		t.Fatalf("layer %s: the waiting request's epoch did not run", got.Layer)
	}
}
