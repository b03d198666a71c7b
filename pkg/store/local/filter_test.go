package local

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestCompiledFilterMatchesReference checks the column filter against
// matches on random memories and filters, including values no row holds,
// rows moved by deletes and times equal to the bounds.
func TestCompiledFilterMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newPartition(0, 0)
	for i := range 400 {
		m := testMemory("a", i, nil)
		m.Namespace = pick("default", "work", "home")
		m.Subject = pick("", "alice", "bob")
		m.Session = pick("", "s1", "s2")
		m.Domain = pick(memory.DomainGeneral, memory.DomainToolUsage)
		m.Type = memory.Type(pick(string(memory.TypeFact), string(memory.TypePolicy)))
		m.Kind = memory.Kind(pick(string(memory.KindSemantic), string(memory.KindEpisodic)))
		m.Layer = memory.Layer(pick(string(memory.LayerBuffer), string(memory.LayerCore)))
		m.Archived = r.IntN(5) == 0
		m.CreatedAt = base.Add(time.Duration(r.IntN(20)) * time.Second).Add(time.Duration(r.IntN(3)))
		if r.IntN(3) > 0 { // else valid from CreatedAt (older records)
			m.ValidFrom = base.Add(time.Duration(r.IntN(20)) * time.Second)
		}
		if r.IntN(4) == 0 {
			inv := base.Add(time.Duration(r.IntN(30)) * time.Second)
			m.InvalidAt, m.SupersededBy = &inv, "a-new"
			if r.IntN(3) > 0 { // else valid until InvalidAt (older records)
				until := m.ValidSince().Add(time.Duration(r.IntN(10)) * time.Second)
				m.ValidUntil = &until
			}
		}
		m.Tags = []string{pick("x", "y", "z")}
		m.Key = pick("", "k1", "k2")
		mustUpsert(t, p, m, 1, lexical.MemoryVector(m))
	}
	for i := range 60 {
		mustRemove(t, p, recAt(t, p, r.IntN(len(p.recs))).ID)
		if i%2 == 0 { // overwrite in place, with new values
			m := recAt(t, p, r.IntN(len(p.recs)))
			m.Namespace, m.Archived = "new-"+strconv.Itoa(i), !m.Archived
			if m.InvalidAt == nil {
				inv := base.Add(2 * time.Hour)
				m.InvalidAt = &inv
			} else {
				m.Reopen()
			}
			mustUpsert(t, p, m, 1, lexical.MemoryVector(m))
		}
	}
	some := func(vals ...string) []string {
		var out []string
		for _, v := range vals {
			if r.IntN(3) == 0 {
				out = append(out, v)
			}
		}
		return out
	}
	for q := range 3000 {
		f := store.Filter{
			Namespaces:        some("default", "work", "nowhere", "new-0"),
			Subjects:          some("", "alice", "carol"),
			Sessions:          some("s1", "s3"),
			Domains:           some(memory.DomainGeneral, "other"),
			Types:             asKinds[memory.Type](some(string(memory.TypeFact), string(memory.TypePolicy))),
			Kinds:             asKinds[memory.Kind](some(string(memory.KindEpisodic))),
			Layers:            asKinds[memory.Layer](some(string(memory.LayerCore), string(memory.LayerWorking))),
			Tags:              some("x", "w"),
			Keys:              some("k1", "k3"),
			IncludeArchived:   r.IntN(2) == 0,
			IncludeSuperseded: r.IntN(2) == 0,
		}
		if r.IntN(3) == 0 {
			f.CreatedAfter = base.Add(time.Duration(r.IntN(20)) * time.Second).Add(time.Duration(r.IntN(3)))
		}
		if r.IntN(3) == 0 {
			f.CreatedBefore = base.Add(time.Duration(r.IntN(20)) * time.Second).Add(time.Duration(r.IntN(3)))
		}
		if r.IntN(3) == 0 {
			f.ValidAt = base.Add(time.Duration(r.IntN(30)) * time.Second)
		}
		if r.IntN(3) == 0 {
			f.KnownAt = base.Add(time.Duration(r.IntN(30)) * time.Second).Add(time.Duration(r.IntN(3)))
		}
		rf, ok := p.compileFilter(&f)
		for i := range p.recs {
			m := recAt(t, p, i)
			want := matches(&m, &f)
			if got := ok && p.match(&rf, i); got != want {
				t.Fatalf("filter %d %+v on memory %+v: compiled %v, reference %v", q, f, m, got, want)
			}
		}
	}
}

func asKinds[T ~string](list []string) []T {
	var out []T
	for _, v := range list {
		out = append(out, T(v))
	}
	return out
}
