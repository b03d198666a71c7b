package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// 003 decays per active epoch: manual epochs over an idle tenant decay
// nothing, however many; a recall or a new memory makes the next one
// decay once.
func TestDecayOnlyOnActiveEpochs(t *testing.T) {
	f := newFixture(t, "")
	a := f.mem("The user prefers dark themes in every editor", memory.TypePreference, memory.SourceTurn)
	a.Layer, a.Importance = memory.LayerWorking, 0.5
	f.put(t, a)
	f.epoch(t) // the first epoch: a is new
	want := 0.5 - 0.003
	for range 3 {
		f.clock.add(time.Hour)
		f.epoch(t)
		if m := f.get(t, a.ID); m.Importance != want {
			t.Fatalf("an idle epoch decayed: importance %v, want %v", m.Importance, want)
		}
	}
	f.clock.add(time.Hour)
	m := f.get(t, a.ID)
	m.AccessCount, m.LastAccessed = 1, f.clock.now() // recalled
	if err := f.st.UpdatePayload(t.Context(), tenant, []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	f.clock.add(time.Minute)
	f.epoch(t)
	if m := f.get(t, a.ID); m.Importance != want-0.003 {
		t.Fatalf("after a recall: importance %v, want %v", m.Importance, want-0.003)
	}
}

// 003 step 1: lifecycle tags the layer makes meaningless are removed,
// logged; a working memory keeps its gate rejection (its cooldown).
func TestStaleTagCleanup(t *testing.T) {
	f := newFixture(t, "")
	c := f.mem("Never force-push to the main branch", memory.TypePolicy, memory.SourceTurn)
	c.Layer, c.Tags = memory.LayerCore, []string{"git", TagTriaged, TagGateRejected + "@3"}
	w := f.mem("The office plant is a ficus", memory.TypeFact, memory.SourceTurn)
	w.Layer, w.Tags = memory.LayerWorking, []string{TagTriaged, TagGateRejected2 + "@7"}
	f.put(t, c, w)
	f.epoch(t)
	if m := f.get(t, c.ID); strings.Join(m.Tags, ",") != "git" {
		t.Fatalf("core memory tags %v, want [git]", m.Tags)
	}
	if m := f.get(t, w.ID); strings.Join(m.Tags, ",") != TagGateRejected2+"@7" {
		t.Fatalf("working memory tags %v, want its rejection only", m.Tags)
	}
	if ops := f.journal.ops(PhaseHygiene, "tag"); len(ops) != 2 {
		t.Fatalf("tag cleanup log: %+v", ops)
	}
}

// 003 step 10 without an LLM: a buffer memory restating another (a
// paraphrase the insert-time dedup let through) is superseded by it, its
// reinforcement carried; one with another number, and episodes, are not.
func TestBufferDedupAsReinforcement(t *testing.T) {
	f := newFixture(t, "")
	orig := f.mem("The user likes short commit messages in the api repository", memory.TypePreference, memory.SourceTurn)
	orig.RepetitionCount = 1
	other := f.mem("Deploys of the api repository need 3 approvals", memory.TypeFact, memory.SourceTurn)
	ep := f.mem("We released the api repository today", memory.TypeEpisode, memory.SourceTurn)
	f.put(t, orig, other, ep)
	f.epoch(t)
	f.clock.add(time.Hour)
	dup := f.mem("In the api repository the user likes short commit messages", memory.TypePreference, memory.SourceTurn)
	dup.RepetitionCount, dup.Importance = 1, 0.9
	changed := f.mem("Deploys of the api repository need 4 approvals", memory.TypeFact, memory.SourceTurn)
	ep2 := f.mem("We released the api repository today!", memory.TypeEpisode, memory.SourceTurn)
	ep2.ID = ep.ID + "-2"
	f.put(t, dup, changed, ep2)
	f.epoch(t)
	d := f.get(t, dup.ID)
	if d.SupersededBy != orig.ID || d.Content != dup.Content {
		t.Fatalf("the restatement: superseded by %q, want %q", d.SupersededBy, orig.ID)
	}
	if o := f.get(t, orig.ID); o.Superseded() || o.RepetitionCount != 2 || o.Importance != 0.9-0.003 {
		t.Fatalf("the original: superseded %v, repetitions %d, importance %v", o.Superseded(), o.RepetitionCount, o.Importance)
	}
	for _, id := range []string{other.ID, changed.ID, ep.ID, ep2.ID} {
		if m := f.get(t, id); m.Superseded() {
			t.Fatalf("%q folded into %s", m.Content, m.SupersededBy)
		}
	}
	if ops := f.journal.ops(PhaseDedup, "supersede"); len(ops) != 1 || ops[0].Decider != DecidedByRule {
		t.Fatalf("dedup log: %+v", ops)
	}
}

// 003 step 5: a memory entering core that overlaps another core memory
// is flagged without an LLM; with one the pair is merged in the next
// epoch through the sandbox's merge rules.
func TestCoreOverlap(t *testing.T) {
	for _, level := range []llm.Level{"", llm.LevelAuto} {
		t.Run(string(level)+"-llm", func(t *testing.T) {
			// The two are near duplicates of this test's term vectors
			// (0.92): a merge threshold above that leaves them to the
			// overlap scan alone.
			f := newFixture(t, level, func(c *Config) { c.Rules.MergeSim = 0.95 })
			merges := 0
			if f.llm != nil {
				f.llm.Handle(script{
					triage: func(u string) any { return everyHandle(u, "action", "keep") },
					gate:   func(u string) any { return everyHandle(u, "decision", "approve") },
					merge: func(string) any {
						merges++
						return map[string]any{"merge": true, "merged": "Never force-push to the main branch or to any release branch"}
					},
				}.handle)
			}
			a := f.mem("Never force-push to the main branch", memory.TypePolicy, memory.SourceTurn)
			a.Layer = memory.LayerCore
			b := f.mem("Never force-push to the main branch or to any release branch", memory.TypePolicy, memory.SourceTurn)
			b.Layer, b.RepetitionCount, b.Importance = memory.LayerWorking, 2, 0.9
			f.put(t, a, b)
			f.epoch(t)
			f.clock.add(time.Hour)
			f.epoch(t)
			if m := f.get(t, b.ID); m.Layer != memory.LayerCore && !m.Superseded() {
				t.Fatalf("the policy did not reach core: %s", m.Layer)
			}
			if ops := f.journal.ops(PhaseOverlap, "flag"); len(ops) != 1 {
				t.Fatalf("overlap flags: %+v", ops)
			}
			f.clock.add(time.Hour)
			f.epoch(t)
			if level == "" {
				if ma, mb := f.get(t, a.ID), f.get(t, b.ID); ma.Superseded() || mb.Superseded() {
					t.Fatal("merged without an LLM")
				}
				return
			}
			if merges != 1 {
				t.Fatalf("%d merge calls for the overlap, want 1", merges)
			}
			if ma := f.get(t, a.ID); ma.SupersededBy != b.ID {
				t.Fatalf("overlap not merged: %q superseded by %q", a.Content, ma.SupersededBy)
			}
		})
	}
}
