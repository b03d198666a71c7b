package consolidate

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Without an LLM: explicit memories, preferences and constraints leave the
// buffer by triage, episodes stay (triaged once); a reinforced policy goes
// on to core through the heuristic gate; importance decays by kind.
func TestLifecycleWithoutLLM(t *testing.T) {
	f := newFixture(t, "")
	explicit := f.mem("The staging database is on port 5433", memory.TypeFact, memory.SourceAPI)
	explicit.Confidence = memory.ConfidenceExplicit
	pref := f.mem("The user prefers dark themes in every editor", memory.TypePreference, memory.SourceTurn)
	episode := f.mem("We debugged the flaky login test this afternoon", memory.TypeEpisode, memory.SourceTurn)
	plain := f.mem("The office plant is a ficus", memory.TypeFact, memory.SourceTurn)
	policy := f.mem("Never force-push to the main branch", memory.TypePolicy, memory.SourceTurn)
	policy.RepetitionCount = 2 // reinforcement 5: promoted mechanically
	f.put(t, explicit, pref, episode, plain, policy)

	// Younger than the triage age: only the mechanical promotion runs.
	f.epoch(t)
	if m := f.get(t, explicit.ID); m.Layer != memory.LayerBuffer {
		t.Fatalf("a 0-minute-old memory was triaged: %s", m.Layer)
	}
	if m := f.get(t, policy.ID); m.Layer != memory.LayerWorking {
		t.Fatalf("reinforced policy layer = %s, want working", m.Layer)
	}
	f.clock.add(time.Hour)
	f.epoch(t)
	for id, want := range map[string]memory.Layer{explicit.ID: memory.LayerWorking, pref.ID: memory.LayerWorking,
		episode.ID: memory.LayerBuffer, plain.ID: memory.LayerBuffer, policy.ID: memory.LayerCore} {
		if m := f.get(t, id); m.Layer != want {
			t.Errorf("%q: layer %s, want %s", m.Content, m.Layer, want)
		}
	}
	if m := f.get(t, episode.ID); !hasTag(&m, TagTriaged) {
		t.Errorf("kept episode not tagged %s: %v", TagTriaged, m.Tags)
	}
	// Importance: one epoch of decay for the policy (semantic) and the
	// episode (episodic): nothing happened to the tenant between the two
	// epochs, so the second decays nothing (003: only active cycles).
	if m := f.get(t, episode.ID); math.Abs(m.Importance-(0.25-0.005)) > 1e-9 {
		t.Errorf("episode importance %v", m.Importance)
	}
	if m := f.get(t, policy.ID); math.Abs(m.Importance-(1-0.003)) > 1e-9 {
		t.Errorf("policy importance %v", m.Importance)
	}
	if ops := f.journal.ops(PhaseGate, "promote"); len(ops) != 1 || ops[0].MemoryIDs[0] != policy.ID || ops[0].Decider != DecidedByRule {
		t.Errorf("gate log %+v", ops)
	}
}

// The case: 300 distinct explicit facts and a buffer cap of 200
// survive any number of epochs, none archived; inferred memories over the
// cap are archived, never deleted.
func TestCapsArchiveAndSpareExplicit(t *testing.T) {
	f := newFixture(t, "")
	var ms []memory.Memory
	for i := range 300 {
		m := f.mem(fmt.Sprintf("Fact number %d: the laptop choice for project P%d is option %d", i, i, (i*7)%50), memory.TypeFact, memory.SourceAPI)
		m.Confidence = memory.ConfidenceExplicit
		ms = append(ms, m)
	}
	for i := range 250 {
		m := f.mem(fmt.Sprintf("Overheard remark %d about lunch", i), memory.TypeFact, memory.SourceTurn)
		m.Importance = 0.2 + float64(i)/1000
		ms = append(ms, m)
	}
	f.put(t, ms...)
	for range 5 {
		f.clock.add(time.Hour)
		f.epoch(t)
	}
	all := f.all(t)
	if len(all) != 550 {
		t.Fatalf("%d memories after 5 epochs, want 550 (nothing deleted)", len(all))
	}
	archived := 0
	for _, m := range all {
		if m.Archived {
			archived++
			if m.Explicit() {
				t.Fatalf("explicit memory archived: %q", m.Content)
			}
		}
	}
	if archived != 50 {
		t.Fatalf("%d archived, want the 50 inferred buffer memories over the cap of 200", archived)
	}
	for _, m := range all {
		if m.Archived && m.Importance > 0.25 {
			t.Fatalf("archived %q of importance %v: the lowest-weight go first", m.Content, m.Importance)
		}
	}
}

// Without an LLM the same key and subject means the newer value
// supersedes the older: the older is kept, invalid, linked.
func TestSupersedeByKey(t *testing.T) {
	f := newFixture(t, "")
	vim := f.mem("My editor is Vim", memory.TypePreference, memory.SourceAPI)
	vim.Key = "editor"
	f.put(t, vim)
	f.epoch(t)
	f.clock.add(21 * 24 * time.Hour)
	helix := f.mem("I switched to Helix", memory.TypePreference, memory.SourceAPI)
	helix.Key = "Editor"
	other := f.mem("My shell is fish", memory.TypePreference, memory.SourceAPI)
	other.Key = "shell"
	f.put(t, helix, other)
	ev := f.epoch(t)
	if ev.Superseded != 1 {
		t.Fatalf("superseded %d, want 1", ev.Superseded)
	}
	old := f.get(t, vim.ID)
	if old.InvalidAt == nil || old.SupersededBy != helix.ID || old.Content != vim.Content {
		t.Fatalf("vim after the update: invalid_at %v superseded_by %q content %q", old.InvalidAt, old.SupersededBy, old.Content)
	}
	if cur := f.get(t, helix.ID); cur.Superseded() {
		t.Fatal("the newer value was superseded")
	}
	if m := f.get(t, other.ID); m.Superseded() {
		t.Fatal("a memory of another key was superseded")
	}
	if ops := f.journal.ops(PhaseSupersede, "supersede"); len(ops) != 1 || len(ops[0].Before) != 1 || ops[0].Before[0].InvalidAt != nil || ops[0].After[0].InvalidAt == nil {
		t.Fatalf("supersede log: %+v", ops)
	}
	// Further epochs change nothing about it.
	f.clock.add(time.Hour)
	if ev := f.epoch(t); ev.Superseded != 0 {
		t.Fatalf("a later epoch superseded %d", ev.Superseded)
	}
}

// A backdated memory arriving after an epoch (an import, a replayed
// event) is still new to consolidation: its key supersedes the older
// value, and a scheduled epoch does not skip it as idle.
func TestBackdatedUpdateAfterAnEpoch(t *testing.T) {
	f := newFixture(t, "")
	vim := f.mem("My editor is Vim", memory.TypePreference, memory.SourceAPI)
	vim.Key = "editor"
	vim.CreatedAt, vim.ValidFrom = vim.CreatedAt.Add(-60*24*time.Hour), vim.ValidFrom.Add(-60*24*time.Hour)
	f.put(t, vim)
	f.epoch(t)
	f.clock.add(time.Hour)
	helix := f.mem("I switched to Helix", memory.TypePreference, memory.SourceAPI)
	helix.Key = "editor"
	helix.CreatedAt, helix.ValidFrom, helix.ModifiedAt = vim.CreatedAt.Add(24*time.Hour), vim.ValidFrom.Add(24*time.Hour), vim.CreatedAt.Add(24*time.Hour)
	f.put(t, helix)
	ev, err := f.c.Epoch(t.Context(), tenant, "schedule:later", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Superseded != 1 {
		t.Fatalf("scheduled epoch after a backdated update: %+v", ev)
	}
	if m := f.get(t, vim.ID); m.SupersededBy != helix.ID {
		t.Fatalf("vim superseded by %q", m.SupersededBy)
	}
}

// A crash in the middle of an epoch's writes, then the redelivery (and,
// separately, the next request): every memory is decayed exactly once.
func TestInterruptedEpochAppliesNothingTwice(t *testing.T) {
	for _, next := range []string{"same request", "next request"} {
		t.Run(next, func(t *testing.T) {
			defer func(n int) { updateBatch = n }(updateBatch)
			updateBatch = 3
			f := newFixture(t, "")
			var ms []memory.Memory
			for i := range 10 {
				m := f.mem(fmt.Sprintf("Working fact %d about the build", i), memory.TypeFact, memory.SourceTurn)
				m.Layer, m.Importance = memory.LayerWorking, 0.5
				ms = append(ms, m)
			}
			f.put(t, ms...)
			f.st.failAfter = 1 // the second payload batch fails
			if _, err := f.c.Epoch(t.Context(), tenant, "crashing", nil); err == nil {
				t.Fatal("epoch with a failing store succeeded")
			}
			f.st.failAfter = -1
			f.clock.add(time.Minute)
			id := "crashing"
			if next == "next request" {
				id = "after-crash"
			}
			ev, err := f.c.Epoch(t.Context(), tenant, id, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Seq != 1 {
				t.Fatalf("resumed epoch seq %d, want 1", ev.Seq)
			}
			for _, m := range f.all(t) {
				if math.Abs(m.Importance-(0.5-0.003)) > 1e-9 || m.Epoch != 1 {
					t.Fatalf("%q: importance %v epoch %d after a crash and a retry", m.Content, m.Importance, m.Epoch)
				}
			}
			// And the same request once more is a no-op.
			if _, err := f.c.Epoch(t.Context(), tenant, id, nil); err != nil {
				t.Fatal(err)
			}
			for _, m := range f.all(t) {
				if m.Epoch != 1 {
					t.Fatalf("a duplicate request changed %q", m.Content)
				}
			}
		})
	}
}

// Gate rejections escalate with epoch-based cooldowns.
func TestGateRejectionsEscalate(t *testing.T) {
	f := newFixture(t, "", func(c *Config) { c.Rules.GateCooldown1, c.Rules.GateCooldown2 = 2, 3 })
	m := f.mem("The cafeteria serves soup on Tuesdays", memory.TypeFact, memory.SourceTurn)
	m.Layer, m.Importance, m.AccessCount = memory.LayerWorking, 0.9, 5
	f.put(t, m)
	var tags [][]string
	for range 9 {
		f.clock.add(time.Hour)
		f.epoch(t)
		got := f.get(t, m.ID)
		tags = append(tags, got.Tags)
		if got.Layer != memory.LayerWorking {
			t.Fatalf("a plain fact reached %s", got.Layer)
		}
	}
	rejections := f.journal.ops(PhaseGate, "reject")
	// Epoch 1 rejects; retried at 3 (cooldown 2); then at 6 (cooldown 3):
	// final; never again.
	if len(rejections) != 3 {
		t.Fatalf("%d rejections, want 3: %v", len(rejections), tags)
	}
	if last := f.get(t, m.ID); !hasTagPrefix(&last, TagGateFinal) {
		t.Fatalf("tags after three rejections: %v", last.Tags)
	}
}

func hasTagPrefix(m *memory.Memory, p string) bool {
	for _, t := range m.Tags {
		if len(t) >= len(p) && t[:len(p)] == p {
			return true
		}
	}
	return false
}

// A scheduled epoch over a tenant with nothing new since the last one
// changes nothing (003: no decay while idle).
func TestScheduledEpochIdles(t *testing.T) {
	f := newFixture(t, "")
	m := f.mem("The build uses Bazel", memory.TypeFact, memory.SourceTurn)
	m.Layer, m.Importance = memory.LayerWorking, 0.5
	f.put(t, m)
	f.epoch(t)
	f.clock.add(time.Hour)
	for i := range 3 {
		if _, err := f.c.Epoch(t.Context(), tenant, fmt.Sprintf("schedule:%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.get(t, m.ID); math.Abs(got.Importance-(0.5-0.003)) > 1e-9 {
		t.Fatalf("importance %v after idle scheduled epochs", got.Importance)
	}
}

// The tenant cap (000) archives inferred memories, lowest score first,
// even when explicit memories alone exceed it; explicit ones stay; one
// epoch archives at most max-archive-per-epoch.
func TestTenantCapAndArchiveBudget(t *testing.T) {
	f := newFixture(t, "", func(c *Config) { c.Rules.TenantCap, c.Rules.MaxArchivePerEpoch, c.Rules.BufferCap = 5, 6, 0 })
	var ms []memory.Memory
	for i := range 10 {
		e := f.mem(fmt.Sprintf("Explicit fact %d about the deployment", i), memory.TypeFact, memory.SourceAPI)
		in := f.mem(fmt.Sprintf("Inferred fact %d about the office", i), memory.TypeFact, memory.SourceTurn)
		in.Layer = memory.LayerWorking
		in.AccessCount = i // the most used are archived last
		ms = append(ms, e, in)
	}
	f.put(t, ms...)
	count := func() (explicit, inferred int) {
		for _, m := range f.all(t) {
			if m.Archived && m.Explicit() {
				explicit++
			} else if m.Archived {
				inferred++
			}
		}
		return
	}
	f.epoch(t)
	if e, i := count(); e != 0 || i != 6 {
		t.Fatalf("after one epoch: %d explicit and %d inferred archived, want 0 and 6 (the per-epoch budget)", e, i)
	}
	for _, m := range f.all(t) {
		if m.Archived && m.AccessCount >= 6 {
			t.Fatalf("%q (access %d) archived before less used ones", m.Content, m.AccessCount)
		}
	}
	f.clock.add(time.Hour)
	f.epoch(t)
	if e, i := count(); e != 0 || i != 10 {
		t.Fatalf("after two epochs: %d explicit and %d inferred archived, want 0 and 10", e, i)
	}
	if n := len(f.all(t)); n != 20 {
		t.Fatalf("%d memories, want 20: a cap never deletes", n)
	}
}
