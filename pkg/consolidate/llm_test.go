package consolidate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// script answers each consolidation call by its prompt.
type script struct {
	triage, gate, merge, reconcile, distill, audit func(user string) any
}

func (s script) handle(r llmtest.Request) llmtest.Reply {
	sys, user := r.System(), r.LastUser()
	var f func(string) any
	switch {
	case strings.Contains(sys, "triage"):
		f = s.triage
	case strings.Contains(sys, "CORE"):
		f = s.gate
	case strings.Contains(sys, "near-duplicate"):
		f = s.merge
	case strings.Contains(sys, "OLDER"):
		f = s.reconcile
	case strings.Contains(sys, "status snapshot"):
		f = s.distill
	case strings.Contains(sys, "audit"):
		f = s.audit
	}
	if f == nil {
		return llmtest.Status(500)
	}
	return llmtest.JSON(f(user))
}

var handleRe = regexp.MustCompile(`\[(m\d+)\]`)

// everyHandle decides the same for every memory of a batch.
func everyHandle(user, field, value string) any {
	var ds []map[string]string
	for _, m := range handleRe.FindAllStringSubmatch(user, -1) {
		ds = append(ds, map[string]string{"id": m[1], field: value})
	}
	return map[string]any{"decisions": ds}
}

// At llm-level full the LLM triages and gates: what it promotes moves,
// what it keeps is tagged, every decision is logged as the LLM's.
func TestTriageAndGateByLLM(t *testing.T) {
	f := newFixture(t, llm.LevelFull)
	f.llm.Handle(script{
		triage: func(u string) any { return everyHandle(u, "action", "promote") },
		gate:   func(u string) any { return everyHandle(u, "decision", "approve") },
	}.handle)
	a := f.mem("The deploy script lives in tools/deploy.sh", memory.TypeFact, memory.SourceTurn)
	f.put(t, a)
	f.clock.add(time.Hour)
	f.epoch(t)
	if m := f.get(t, a.ID); m.Layer != memory.LayerWorking {
		t.Fatalf("layer after LLM triage: %s", m.Layer)
	}
	// Now make it a core candidate.
	m := f.get(t, a.ID)
	m.Importance, m.AccessCount = 0.8, 4
	if err := f.st.UpdatePayload(t.Context(), tenant, []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	f.clock.add(time.Hour)
	f.epoch(t)
	if m := f.get(t, a.ID); m.Layer != memory.LayerCore {
		t.Fatalf("layer after LLM gate: %s", m.Layer)
	}
	for _, phase := range []string{PhaseTriage, PhaseGate} {
		ops := f.journal.ops(phase, "promote")
		if len(ops) != 1 || ops[0].Decider != DecidedByLLM || ops[0].Model == "" {
			t.Fatalf("%s log: %+v", phase, ops)
		}
	}
}

// A broken LLM answer changes nothing: the memories wait for the next
// epoch, untagged.
func TestTriageLLMFailureLeavesMemories(t *testing.T) {
	f := newFixture(t, llm.LevelFull)
	f.llm.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("not json at all") })
	a := f.mem("The deploy script lives in tools/deploy.sh", memory.TypeFact, memory.SourceTurn)
	f.put(t, a)
	f.clock.add(time.Hour)
	f.epoch(t)
	if m := f.get(t, a.ID); m.Layer != memory.LayerBuffer || hasTag(&m, TagTriaged) {
		t.Fatalf("after a broken answer: layer %s tags %v", m.Layer, m.Tags)
	}
}

// Merge of near duplicates makes a new memory from both (highest layer,
// summed counts, union of tags) and supersedes both; reconcile of an
// update supersedes the older by the merged statement.
func TestMergeAndReconcile(t *testing.T) {
	f := newFixture(t, llm.LevelAuto)
	var merged, reconciled []string
	f.llm.Handle(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		gate:   func(u string) any { return everyHandle(u, "decision", "reject") },
		merge: func(u string) any {
			merged = append(merged, u)
			return map[string]any{"merge": true, "merged": "The CI pipeline runs on GitHub Actions with Go 1.26; it caches Go modules"}
		},
		reconcile: func(u string) any {
			reconciled = append(reconciled, u)
			return map[string]any{"decision": "update", "merged_content": "Test coverage of the payments service is 78%"}
		},
	}.handle)
	a := f.mem("The CI pipeline runs on GitHub Actions with Go 1.26", memory.TypeFact, memory.SourceTurn)
	a.Layer, a.AccessCount, a.Tags = memory.LayerCore, 3, []string{"ci"}
	b := f.mem("The CI pipeline runs on GitHub Actions with Go 1.26 and caches modules", memory.TypeFact, memory.SourceTurn)
	b.Layer, b.AccessCount, b.Tags = memory.LayerWorking, 2, []string{"build"}
	old := f.mem("Test coverage of the payments service is 65% measured by go test", memory.TypeFact, memory.SourceTurn)
	old.Layer = memory.LayerWorking
	f.put(t, a, b, old)
	f.clock.add(30 * 24 * time.Hour)
	newer := f.mem("Coverage of payments service tests went up to 78% this sprint", memory.TypeFact, memory.SourceTurn)
	newer.Layer = memory.LayerWorking
	f.put(t, newer)
	ev := f.epoch(t)
	if len(merged) != 1 {
		t.Fatalf("%d merge calls, want 1", len(merged))
	}
	if ev.Merged != 1 {
		t.Fatalf("merged %d", ev.Merged)
	}
	ma, mb := f.get(t, a.ID), f.get(t, b.ID)
	if ma.SupersededBy == "" || ma.SupersededBy != mb.SupersededBy {
		t.Fatalf("merge sources not superseded by one memory: %q %q", ma.SupersededBy, mb.SupersededBy)
	}
	m := f.get(t, ma.SupersededBy)
	if m.Layer != memory.LayerCore || m.AccessCount != 5 || len(m.DerivedFrom) != 2 || m.Superseded() || len(m.Vector) == 0 {
		t.Fatalf("merged memory: layer %s access %d derived %v vector %d", m.Layer, m.AccessCount, m.DerivedFrom, len(m.Vector))
	}
	if !hasTag(&m, "ci") || !hasTag(&m, "build") {
		t.Fatalf("merged tags %v", m.Tags)
	}
	if len(reconciled) == 0 {
		t.Fatal("no reconcile call for the coverage update")
	}
	o := f.get(t, old.ID)
	if !o.Superseded() || o.Content != old.Content {
		t.Fatalf("older coverage: superseded %v content %q", o.Superseded(), o.Content)
	}
	cur := f.get(t, o.SupersededBy)
	if cur.Content != "Test coverage of the payments service is 78%" || cur.Superseded() {
		t.Fatalf("current coverage %q (superseded %v)", cur.Content, cur.Superseded())
	}
	// Redo nothing: the next epoch asks about no pair again.
	n := len(merged) + len(reconciled)
	f.clock.add(time.Hour)
	f.epoch(t)
	if len(merged)+len(reconciled) != n {
		t.Fatalf("pairs asked about again: %d → %d", n, len(merged)+len(reconciled))
	}
}

// A merge whose text drops most of the inputs is refused and logged.
func TestMergeRefusesLossyText(t *testing.T) {
	f := newFixture(t, llm.LevelAuto)
	f.llm.Handle(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		merge:  func(string) any { return map[string]any{"merge": true, "merged": "CI"} },
	}.handle)
	a := f.mem("The CI pipeline runs on GitHub Actions with Go 1.26", memory.TypeFact, memory.SourceTurn)
	b := f.mem("The CI pipeline runs on GitHub Actions with Go 1.26 and caches modules", memory.TypeFact, memory.SourceTurn)
	a.Layer, b.Layer = memory.LayerWorking, memory.LayerWorking // in the buffer, b restates a: dedup folds it without a merge
	f.put(t, a, b)
	f.epoch(t)
	if ma, mb := f.get(t, a.ID), f.get(t, b.ID); ma.Superseded() || mb.Superseded() {
		t.Fatal("a lossy merge was applied")
	}
	if ops := f.journal.ops(PhaseMerge, "merge"); len(ops) != 1 || ops[0].Applied {
		t.Fatalf("refused merge log: %+v", ops)
	}
}

// Three session notes become one project status in working, tagged and
// never a core candidate; the notes are tagged distilled.
func TestDistill(t *testing.T) {
	f := newFixture(t, llm.LevelAuto)
	f.llm.Handle(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		distill: func(string) any {
			return map[string]any{"status": "Auth migration done; billing export in progress; next: load tests."}
		},
	}.handle)
	var notes []memory.Memory
	for i, s := range []string{"Finished the auth migration", "Started the billing export", "Planned the load tests"} {
		n := f.mem(s, memory.TypeEpisode, memory.SourceExit)
		n.CreatedAt = n.CreatedAt.Add(time.Duration(i) * time.Minute)
		notes = append(notes, n)
	}
	f.put(t, notes...)
	ev := f.epoch(t)
	if ev.Distilled != 1 {
		t.Fatalf("distilled %d", ev.Distilled)
	}
	var status *memory.Memory
	for _, m := range f.all(t) {
		if hasTag(&m, TagProjectStatus) {
			status = &m
		}
	}
	if status == nil || status.Layer != memory.LayerWorking || !hasTag(status, TagAutoDistilled) || len(status.DerivedFrom) != 3 {
		t.Fatalf("status %+v", status)
	}
	for _, n := range notes {
		if m := f.get(t, n.ID); !hasTag(&m, TagDistilled) {
			t.Fatalf("note %q not tagged distilled", n.Content)
		}
	}
}

// The audit sandbox: a batch with a delete and bad operations below the
// safety score is refused whole; a good batch is applied, each operation
// logged.
func TestAuditSandbox(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ops     func(ids []string) []map[string]any
		applied int
		refused int
	}{
		{"good batch", func(ids []string) []map[string]any {
			return []map[string]any{{"op": "adjust", "id": ids[0], "importance": 0.9}, {"op": "demote", "id": ids[1]}}
		}, 2, 0},
		{"delete refuses the batch", func(ids []string) []map[string]any {
			return []map[string]any{{"op": "delete", "id": ids[0]}, {"op": "adjust", "id": ids[1], "importance": 2.0}, {"op": "demote", "id": ids[2]}}
		}, 0, 3},
		{"one bad of four is refused alone", func(ids []string) []map[string]any {
			return []map[string]any{{"op": "adjust", "id": ids[0], "importance": 0.4}, {"op": "adjust", "id": ids[1], "importance": 0.3},
				{"op": "promote", "id": ids[2]}, {"op": "merge", "ids": []string{ids[3]}, "content": "x"}}
		}, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, llm.LevelFull)
			var ids []string
			f.llm.Handle(script{
				triage: func(u string) any { return everyHandle(u, "action", "keep") },
				gate:   func(u string) any { return everyHandle(u, "decision", "reject") },
				audit: func(u string) any {
					for _, id := range ids {
						if !strings.Contains(u, "["+id[:8]+"]") {
							return map[string]any{"ops": []any{}}
						}
					}
					short := make([]string, len(ids))
					for i, id := range ids {
						short[i] = id[:8]
					}
					return map[string]any{"ops": tc.ops(short)}
				},
			}.handle)
			var ms []memory.Memory
			for i := range 4 {
				m := f.mem(fmt.Sprintf("Working memory number %d about topic %d", i, i), memory.TypeFact, memory.SourceTurn)
				m.Layer, m.Importance = memory.LayerWorking, 0.5
				m.CreatedAt = m.CreatedAt.Add(-10 * 24 * time.Hour)
				m.ModifiedAt = m.CreatedAt
				ms = append(ms, m)
				ids = append(ids, m.ID)
			}
			ms[1].Layer = memory.LayerCore
			f.put(t, ms...)
			f.epoch(t)
			var applied, refused int
			for _, op := range f.journal.ops(PhaseAudit, "") {
				if op.Applied {
					applied++
				} else {
					refused++
				}
			}
			if applied != tc.applied || refused != tc.refused {
				ops, _ := json.Marshal(f.journal.ops(PhaseAudit, ""))
				t.Fatalf("applied %d refused %d, want %d %d: %s", applied, refused, tc.applied, tc.refused, ops)
			}
			if len(f.all(t)) != 4 {
				t.Fatal("audit deleted a memory")
			}
		})
	}
}

// checkMerged refuses a merged text that drops or changes a detail of an
// input, or keeps under half of the shortest input.
func TestCheckMerged(t *testing.T) {
	a := &memory.Memory{ID: "a", Content: "The API gateway listens on port 8080 in staging"}
	b := &memory.Memory{ID: "b", Content: "In staging the API gateway listens on port 8080 behind nginx"}
	for _, tc := range []struct {
		merged string
		ok     bool
	}{
		{"In staging the API gateway listens on port 8080 behind nginx", true},
		{"The staging API gateway listens on port 8080, behind nginx", true},
		{"The staging API gateway listens on port 9090 behind nginx", false},
		{"The API gateway does not listen on port 8080 in staging behind nginx", false},
		{"gateway 8080", false},
		{"", false},
	} {
		err := checkMerged(tc.merged, a, b)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok %v", tc.merged, err, tc.ok)
		}
	}
}

// A memory an epoch makes is embedded the way the embedder embeds one: a
// long merged statement by its chunks too, so recall finds it by its parts.
func TestMadeMemoryLongGetsChunkVectors(t *testing.T) {
	f := newFixture(t, llm.LevelAuto)
	var long strings.Builder
	long.WriteString("The CI pipeline runs on GitHub Actions with Go 1.26 and caches modules.")
	for i := range 60 {
		fmt.Fprintf(&long, " Step %d of the release checklist verifies artefact number %d before it is promoted.", i, i*7)
	}
	f.llm.Handle(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		gate:   func(u string) any { return everyHandle(u, "decision", "reject") },
		merge:  func(string) any { return map[string]any{"merge": true, "merged": long.String()} },
	}.handle)
	a := f.mem("The CI pipeline runs on GitHub Actions with Go 1.26", memory.TypeFact, memory.SourceTurn)
	b := f.mem("The CI pipeline runs on GitHub Actions with Go 1.26 and caches modules", memory.TypeFact, memory.SourceTurn)
	a.Layer, b.Layer = memory.LayerWorking, memory.LayerWorking
	f.put(t, a, b)
	if ev := f.epoch(t); ev.Merged != 1 {
		t.Fatalf("merged %d, want 1", ev.Merged)
	}
	m := f.get(t, f.get(t, a.ID).SupersededBy)
	if len(m.Content) < 3000 || len(m.Vector) == 0 || len(m.ChunkVectors) < 2 {
		t.Fatalf("merged memory of %d chars: vector %d, %d chunk vectors; want a vector and its chunks'", len(m.Content), len(m.Vector), len(m.ChunkVectors))
	}
}
