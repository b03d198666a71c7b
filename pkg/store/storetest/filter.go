package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// filterCorpus is nine memories that differ in every filtered field; the
// fifth is archived, the seventh superseded, the eighth both, the ninth
// quarantined. The i-th is
// created i hours after baseTime.
func (e *env) filterCorpus(t *testing.T, ten string) []memory.Memory {
	rows := []struct {
		ns, subject, domain, session string
		typ                          memory.Type
		kind                         memory.Kind
		layer                        memory.Layer
		tags                         []string
		archived, superseded         bool
		quarantined                  bool
	}{
		{"proj/a", "u1", memory.DomainGeneral, "s1", memory.TypeFact, memory.KindSemantic, memory.LayerBuffer, []string{"x"}, false, false, false},
		{"proj/b", "u2", memory.DomainToolUsage, "s2", memory.TypePitfall, memory.KindSemantic, memory.LayerWorking, []string{"y"}, false, false, false},
		{"proj/a", memory.LoreSubject, memory.DomainUserPreferences, "s1", memory.TypePreference, memory.KindSemantic, memory.LayerCore, []string{"x", "z"}, false, false, false},
		{"default", "u1", memory.DomainGeneral, "s3", memory.TypeEpisode, memory.KindEpisodic, memory.LayerWorking, nil, false, false, false},
		{"proj/b", "u2", memory.DomainToolUsage, "s2", memory.TypeProcedure, memory.KindProcedural, memory.LayerCore, []string{"z"}, true, false, false},
		{"default", "u1", memory.DomainGeneral, "s1", memory.TypeFact, memory.KindSemantic, memory.LayerBuffer, []string{"w"}, false, false, false},
		{"proj/a", "u1", memory.DomainGeneral, "s1", memory.TypeFact, memory.KindSemantic, memory.LayerWorking, []string{"x"}, false, true, false},
		{"proj/b", "u2", memory.DomainToolUsage, "s2", memory.TypePitfall, memory.KindSemantic, memory.LayerCore, []string{"z"}, true, true, false},
		{"proj/a", "u1", memory.DomainGeneral, "s1", memory.TypeFact, memory.KindSemantic, memory.LayerBuffer, []string{"x"}, false, false, true},
	}
	mems := make([]memory.Memory, len(rows))
	for i, r := range rows {
		m := e.basic(t, ten, i, e.vec(1, float32(i)/10, float32(i%2), 0))
		m.Namespace, m.Subject, m.Domain, m.Session = r.ns, r.subject, r.domain, r.session
		m.Type, m.Kind, m.Layer, m.Tags, m.Archived = r.typ, r.kind, r.layer, r.tags, r.archived
		m.CreatedAt = baseTime.Add(time.Duration(i) * time.Hour)
		m.Key = fmt.Sprintf("deploy/step-%d", i%3)
		if r.quarantined {
			m.Quarantine = "instruction override"
		}
		if r.superseded {
			inv := m.CreatedAt.Add(time.Minute)
			m.InvalidAt, m.SupersededBy = &inv, id(t, i-6)
		}
		mems[i] = m
	}
	return mems
}

func testFilters(t *testing.T, e *env) {
	ten := tenant(t, "a")
	mems := e.filterCorpus(t, ten)
	upsert(t, e.s, mems...)
	at := func(h int) time.Time { return baseTime.Add(time.Duration(h) * time.Hour) }
	cases := []struct {
		name string
		f    store.Filter
		want []int
	}{
		{"zero leaves out archived and superseded", store.Filter{}, []int{0, 1, 2, 3, 5}},
		{"include archived", store.Filter{IncludeArchived: true}, []int{0, 1, 2, 3, 4, 5}},
		{"include superseded", store.Filter{IncludeSuperseded: true}, []int{0, 1, 2, 3, 5, 6}},
		{"include archived and superseded", store.Filter{IncludeArchived: true, IncludeSuperseded: true}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"include quarantined", store.Filter{IncludeQuarantined: true}, []int{0, 1, 2, 3, 5, 8}},
		{"include everything", store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"namespace and tag quarantined", store.Filter{Namespaces: []string{"proj/a"}, Tags: []string{"x"}, IncludeQuarantined: true}, []int{0, 2, 8}},
		{"key quarantined", store.Filter{Keys: []string{"deploy/step-2"}, IncludeQuarantined: true}, []int{2, 5, 8}},
		{"namespace superseded", store.Filter{Namespaces: []string{"proj/a"}, IncludeSuperseded: true}, []int{0, 2, 6}},
		{"domain superseded", store.Filter{Domains: []string{memory.DomainToolUsage}, IncludeSuperseded: true}, []int{1}},
		{"domain archived and superseded", store.Filter{Domains: []string{memory.DomainToolUsage}, IncludeArchived: true, IncludeSuperseded: true}, []int{1, 4, 7}},
		{"key superseded", store.Filter{Keys: []string{"deploy/step-0"}, IncludeSuperseded: true}, []int{0, 3, 6}},
		{"created after superseded", store.Filter{CreatedAfter: at(5), IncludeSuperseded: true}, []int{6}},
		{"namespace", store.Filter{Namespaces: []string{"proj/a"}}, []int{0, 2}},
		{"namespaces", store.Filter{Namespaces: []string{"proj/a", "default"}}, []int{0, 2, 3, 5}},
		{"namespace none", store.Filter{Namespaces: []string{"nope"}}, nil},
		{"subject", store.Filter{Subjects: []string{"u1"}}, []int{0, 3, 5}},
		{"subject lore", store.Filter{Subjects: []string{memory.LoreSubject}}, []int{2}},
		{"domain", store.Filter{Domains: []string{memory.DomainToolUsage}}, []int{1}},
		{"domain archived", store.Filter{Domains: []string{memory.DomainToolUsage}, IncludeArchived: true}, []int{1, 4}},
		{"type", store.Filter{Types: []memory.Type{memory.TypeFact}}, []int{0, 5}},
		{"types", store.Filter{Types: []memory.Type{memory.TypePitfall, memory.TypeEpisode}}, []int{1, 3}},
		{"kind", store.Filter{Kinds: []memory.Kind{memory.KindEpisodic}}, []int{3}},
		{"kind archived", store.Filter{Kinds: []memory.Kind{memory.KindProcedural}, IncludeArchived: true}, []int{4}},
		{"layer", store.Filter{Layers: []memory.Layer{memory.LayerCore}}, []int{2}},
		{"layers", store.Filter{Layers: []memory.Layer{memory.LayerBuffer, memory.LayerWorking}}, []int{0, 1, 3, 5}},
		{"tag", store.Filter{Tags: []string{"x"}}, []int{0, 2}},
		{"tag archived", store.Filter{Tags: []string{"z"}, IncludeArchived: true}, []int{2, 4}},
		{"tags any of", store.Filter{Tags: []string{"w", "y"}}, []int{1, 5}},
		{"tag none", store.Filter{Tags: []string{"nope"}}, nil},
		{"exclude tag", store.Filter{ExcludeTags: []string{"x"}}, []int{1, 3, 5}},
		{"exclude tags", store.Filter{ExcludeTags: []string{"x", "w"}, IncludeArchived: true}, []int{1, 3, 4}},
		{"exclude unknown tag", store.Filter{ExcludeTags: []string{"nope"}}, []int{0, 1, 2, 3, 5}},
		{"tag and exclude tag", store.Filter{Tags: []string{"z"}, ExcludeTags: []string{"x"}, IncludeArchived: true}, []int{4}},
		{"session", store.Filter{Sessions: []string{"s1"}}, []int{0, 2, 5}},
		{"key", store.Filter{Keys: []string{"deploy/step-1"}, IncludeArchived: true}, []int{1, 4}},
		{"keys any of", store.Filter{Keys: []string{"deploy/step-0", "deploy/step-2"}}, []int{0, 2, 3, 5}},
		{"key none", store.Filter{Keys: []string{"deploy"}}, nil},
		{"sessions", store.Filter{Sessions: []string{"s2", "s3"}, IncludeArchived: true}, []int{1, 3, 4}},
		{"created after is strict", store.Filter{CreatedAfter: at(1)}, []int{2, 3, 5}},
		{"created before is strict", store.Filter{CreatedBefore: at(2)}, []int{0, 1}},
		{"created between", store.Filter{CreatedAfter: at(0), CreatedBefore: at(5)}, []int{1, 2, 3}},
		{"namespace and tag", store.Filter{Namespaces: []string{"proj/a"}, Tags: []string{"z"}}, []int{2}},
		{"subject and type", store.Filter{Subjects: []string{"u1"}, Types: []memory.Type{memory.TypeFact}}, []int{0, 5}},
		{"layer and kind disjoint", store.Filter{Layers: []memory.Layer{memory.LayerCore}, Kinds: []memory.Kind{memory.KindEpisodic}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]string, len(tc.want))
			for i, n := range tc.want {
				want[i] = mems[n].ID
			}
			if n := count(t, e.s, ten, tc.f); n != len(want) {
				t.Errorf("count = %d, want %d", n, len(want))
			}
			if ids := scrollIDs(t, e.s, ten, tc.f); !sameIDs(ids, want) {
				t.Errorf("scroll = %v, want %v", ids, want)
			}
			hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10, Filter: tc.f})
			if ids := hitIDs(hits); !sameIDs(ids, want) {
				t.Errorf("search = %v, want %v", ids, want)
			}
			// Every memory of the corpus says "memory number".
			hits = searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "memory number", K: 10, Filter: tc.f})
			if ids := hitIDs(hits); !sameIDs(ids, want) {
				t.Errorf("search text = %v, want %v", ids, want)
			}
		})
	}
}
