package extract

import (
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/alias"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestTurnsStateAliases: a turn naming a pet or a person ("my dog Max")
// publishes an alias memory of its subject (type entity, tag alias, key
// alias/<name>/<word>); the same alias said again, or the turn
// redelivered, is the same memory id; another subject's is another.
func TestTurnsStateAliases(t *testing.T) {
	h := newHarness(t, harnessOpts{noLLM: true})
	h.mustHandle(turnEvent("t1", "user", "I took my dog Max to the beach, and my sister Anna came along", t0))
	h.mustHandle(turnEvent("t2", "user", "Max loved it; my dog Max always does", t0.Add(time.Minute)))
	h.mustHandle(turnEvent("t1", "user", "I took my dog Max to the beach, and my sister Anna came along", t0)) // redelivered
	other := turnEvent("t3", "user", "my dog Max is a poodle", t0.Add(2*time.Minute))
	other.Subject = "bob"
	h.mustHandle(other)

	byID := map[string]memory.Memory{}
	for _, f := range byRule(h.facts(), producerAlias) {
		m := f.Memory
		if m.Type != memory.TypeEntity || !slices.Contains(m.Tags, alias.Tag) || m.Transcript() {
			t.Errorf("alias memory %+v: want type entity, tag alias, not a transcript", m)
		}
		if len(m.DerivedFrom) != 1 || transcriptsByID(h)[m.DerivedFrom[0]] == nil {
			t.Errorf("alias memory %s derived from %v, want the transcript memory of its message", m.Key, m.DerivedFrom)
		}
		byID[m.ID] = m
	}
	keys := map[string][]string{}
	for _, m := range byID {
		keys[m.Subject] = append(keys[m.Subject], m.Key)
	}
	slices.Sort(keys["alice"])
	if want := []string{"alias/anna/sister", "alias/max/dog"}; !slices.Equal(keys["alice"], want) {
		t.Fatalf("alice's aliases %v, want %v (each once)", keys["alice"], want)
	}
	if want := []string{"alias/max/dog"}; !slices.Equal(keys["bob"], want) {
		t.Fatalf("bob's aliases %v, want %v", keys["bob"], want)
	}
}
