package consolidate

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// calls counts the scripted model's calls by prompt, failing the first
// fail reconcile calls with a 500.
type calls struct {
	mu                     sync.Mutex
	reconcile, merge, fail int
}

func (c *calls) handler(s script) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		c.mu.Lock()
		switch sys := r.System(); {
		case strings.Contains(sys, "OLDER"):
			c.reconcile++
			if c.fail > 0 {
				c.fail--
				c.mu.Unlock()
				return llmtest.Status(500)
			}
		case strings.Contains(sys, "near-duplicate"):
			c.merge++
		}
		c.mu.Unlock()
		return s.handle(r)
	}
}

func (c *calls) counts() (reconcile, merge int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reconcile, c.merge
}

var serviceRe = regexp.MustCompile(`\bs\d+\b`)

// currentByKey counts the current (neither superseded nor archived)
// memories under each key.
func currentByKey(all []memory.Memory) map[string]int {
	out := map[string]int{}
	for _, m := range all {
		if m.Key != "" && !m.Superseded() && !m.Archived {
			out[m.Key]++
		} else if m.Key != "" {
			out[m.Key] += 0
		}
	}
	return out
}

// Issue 19 item 2: at llm-level full, 500 same-key updates in one burst.
// The rule supersedes every older version in the first epoch (no key
// keeps two current versions while the model reviews); the reviews beyond
// the per-epoch budget wait in the persistent queue, oldest first, across
// a consolidator restart, failed calls are retried, and the queue drains
// to 0 with every supersession explained by the model.
func TestBurstOfSameKeyUpdatesAtFull(t *testing.T) {
	const n, budget = 500, 40
	f := newFixture(t, llm.LevelFull, func(c *Config) { c.Rules.MaxPairCalls = budget })
	cs := &calls{fail: 3}
	f.llm.Handle(cs.handler(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		gate:   func(u string) any { return everyHandle(u, "decision", "reject") },
		merge:  func(string) any { return map[string]any{"merge": false} },
		reconcile: func(u string) any {
			// The burst also makes pairs of different services (near
			// duplicates with other numbers): those are kept apart.
			if s := serviceRe.FindAllString(u, -1); len(s) < 2 || s[0] != s[1] {
				return map[string]any{"decision": "keep_both", "reason": "different services"}
			}
			return map[string]any{"decision": "update", "reason": "the newer value replaces the older"}
		},
		audit: func(string) any { return map[string]any{"ops": []any{}} },
	}))
	var olds, news []memory.Memory
	for i := range n {
		m := f.mem(fmt.Sprintf("Service s%d runs with a connection pool of %d", i, 10+i), memory.TypeFact, memory.SourceAPI)
		m.Key = fmt.Sprintf("service-s%d/pool-size", i)
		olds = append(olds, m)
	}
	f.put(t, olds...)
	f.epoch(t) // the olds are near duplicates of each other: merge pairs
	cs.mu.Lock()
	cs.reconcile, cs.merge = 0, 0
	cs.mu.Unlock()
	f.clock.add(time.Hour)
	for i := range n {
		m := f.mem(fmt.Sprintf("Service s%d now runs with a connection pool of %d", i, 1000+i), memory.TypeFact, memory.SourceAPI)
		m.Key = fmt.Sprintf("service-s%d/pool-size", i)
		news = append(news, m)
	}
	f.put(t, news...)

	var depths []int
	for epoch := 0; ; epoch++ {
		if epoch == 100 {
			t.Fatalf("the queue did not drain in 100 epochs: depths %v", depths)
		}
		if epoch == 3 {
			// A restart keeps the queue: it lives in JetStream.
			before, err := f.c.QueueDepth(t.Context(), tenant)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.c.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			f.start(t)
			if after, err := f.c.QueueDepth(t.Context(), tenant); err != nil || after != before || after == 0 {
				t.Fatalf("queue depth %d before a restart, %d after (%v)", before, after, err)
			}
		}
		f.clock.add(time.Hour)
		f.epoch(t)
		for k, cur := range currentByKey(f.all(t)) {
			if cur != 1 {
				for _, m := range f.all(t) {
					if m.Key == k {
						t.Logf("%s %q inv=%v by=%s arch=%v layer=%s", m.ID, m.Content, m.InvalidAt, m.SupersededBy, m.Archived, m.Layer)
					}
				}
				t.Fatalf("epoch %d: key %s has %d current versions", epoch, k, cur)
			}
		}
		d, err := f.c.QueueDepth(t.Context(), tenant)
		if err != nil {
			t.Fatal(err)
		}
		if g := f.gauge(t, "recollect_consolidator_pair_queue_depth"); int(g) != d {
			t.Fatalf("depth metric %v, queue %d", g, d)
		}
		depths = append(depths, d)
		if len(depths) > 1 && d > depths[len(depths)-2] {
			t.Fatalf("the queue grew: %v", depths)
		}
		if d == 0 {
			break
		}
	}
	// The first epoch asked about budget pairs, 3 of the calls failed.
	pairs := depths[0] + budget - 3
	if pairs < n {
		t.Fatalf("%d pairs in all, fewer than the %d updates", pairs, n)
	}
	for i := 1; i < len(depths)-1; i++ {
		if depths[i-1]-depths[i] != budget {
			t.Fatalf("epoch %d asked about %d pairs, want the budget %d: %v", i, depths[i-1]-depths[i], budget, depths)
		}
	}
	for i := range n {
		o, c := f.get(t, olds[i].ID), f.get(t, news[i].ID)
		if o.SupersededBy != c.ID || o.Content != olds[i].Content || c.Superseded() || c.Content != news[i].Content {
			t.Fatalf("key %d: older superseded by %q (want %q), current %q", i, o.SupersededBy, c.ID, c.Content)
		}
	}
	explained := 0
	for _, op := range f.journal.ops(PhaseReconcile, "explain") {
		if op.Decider == DecidedByLLM && op.Reason != "" {
			explained++
		}
	}
	if explained != n {
		t.Fatalf("%d supersessions explained by the model, want %d", explained, n)
	}
	// One review per update (3 retried), then the near duplicates across
	// services (merge pairs the model declines), each asked about once.
	if rc, mc := cs.counts(); rc != n+3 || rc-3+mc != pairs {
		t.Fatalf("%d reconcile calls (want %d: one per update, 3 retried), %d merge calls (want %d)", rc, n+3, mc, pairs-n)
	}
	t.Logf("%d updates, %d pairs; queue depth after each epoch: %v", n, pairs, depths)
}

// A review the model refuses with a reason restores the older memory (a
// key shared by two different facts); one refused without a reason
// leaves the rule's update, logged.
func TestReviewRefusal(t *testing.T) {
	f := newFixture(t, llm.LevelFull)
	f.llm.Handle(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		gate:   func(u string) any { return everyHandle(u, "decision", "reject") },
		reconcile: func(u string) any {
			if strings.Contains(u, "project 21") {
				return map[string]any{"decision": "keep_both", "reason": "project 2 and project 21 are different projects"}
			}
			return map[string]any{"decision": "keep_both"}
		},
		audit: func(string) any { return map[string]any{"ops": []any{}} },
	}.handle)
	a := f.mem("Short commit messages in project 2", memory.TypePreference, memory.SourceAPI)
	a.Key = "preference/commit-messages"
	a.AccessCount, a.RepetitionCount, a.Importance = 7, 4, 0.9
	a.Tags = []string{"git"}
	b := f.mem("The on-call rota changes on Mondays", memory.TypeFact, memory.SourceAPI)
	b.Key = "ops/rota"
	f.put(t, a, b)
	f.epoch(t)
	f.clock.add(time.Hour)
	a2 := f.mem("Conventional commits in project 21", memory.TypePreference, memory.SourceAPI)
	a2.Key = "preference/commit-messages"
	b2 := f.mem("The on-call rota changes on Tuesdays", memory.TypeFact, memory.SourceAPI)
	b2.Key = "ops/rota"
	f.put(t, a2, b2)
	f.epoch(t)
	if m := f.get(t, a.ID); m.Superseded() {
		t.Fatalf("refused with a reason, the older is still superseded by %s", m.SupersededBy)
	}
	// The newer gives back what it took over from the restored older:
	// the counts, the importance, the tags.
	if m := f.get(t, a2.ID); m.AccessCount != 0 || m.RepetitionCount != 0 || m.Importance > 0.8 || slices.Contains(m.Tags, "git") {
		t.Fatalf("the newer kept the restored older's reinforcement: access %d, repetitions %d, importance %.2f, tags %v",
			m.AccessCount, m.RepetitionCount, m.Importance, m.Tags)
	}
	if m := f.get(t, a.ID); m.AccessCount != 7 || m.RepetitionCount != 4 {
		t.Fatalf("the restored older lost its counts: %d %d", m.AccessCount, m.RepetitionCount)
	}
	if ops := f.journal.ops(PhaseReconcile, "give_back"); len(ops) != 1 {
		t.Fatalf("give_back log: %+v", ops)
	}
	if m := f.get(t, b.ID); m.SupersededBy != b2.ID {
		t.Fatalf("refused without a reason, the update was undone: superseded by %q", m.SupersededBy)
	}
	if ops := f.journal.ops(PhaseReconcile, "restore"); len(ops) != 2 || !ops[0].Applied == !ops[1].Applied {
		t.Fatalf("restore log: %+v", ops)
	}
}

// Near duplicates stating the same attribute (the same subject, keys
// ending in the same attribute) go to reconcile, never to merge: the
// newer statement becomes current as said, without the older value.
func TestSameAttributeNeverMerges(t *testing.T) {
	f := newFixture(t, llm.LevelFull)
	cs := &calls{}
	f.llm.Handle(cs.handler(script{
		triage: func(u string) any { return everyHandle(u, "action", "keep") },
		gate:   func(u string) any { return everyHandle(u, "decision", "reject") },
		merge: func(string) any {
			return map[string]any{"merge": true, "merged": "The release branch is release-2025; also noted: release-2024"}
		},
		reconcile: func(string) any {
			return map[string]any{"decision": "update", "merged_content": "The release branch is release-2025; also noted: release-2024", "reason": "newer"}
		},
		audit: func(string) any { return map[string]any{"ops": []any{}} },
	}))
	old := f.mem("The release branch of the api project is release-2024", memory.TypeFact, memory.SourceAPI)
	old.Key = "release-branch"
	f.put(t, old)
	f.epoch(t)
	f.clock.add(2 * time.Hour)
	newer := f.mem("The release branch of the api project is release-2025", memory.TypeFact, memory.SourceAPI)
	newer.Key = "fact/release-branch"
	f.put(t, newer)
	f.epoch(t)
	if rc, mc := cs.counts(); rc != 1 || mc != 0 {
		t.Fatalf("%d reconcile and %d merge calls, want 1 and 0", rc, mc)
	}
	o, c := f.get(t, old.ID), f.get(t, newer.ID)
	if o.SupersededBy != newer.ID || c.Superseded() || c.Content != newer.Content {
		t.Fatalf("older superseded by %q, current %q", o.SupersededBy, c.Content)
	}
}

// gauge reads a gauge of the consolidator's registry.
func (f *fixture) gauge(t *testing.T, name string) float64 {
	t.Helper()
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
