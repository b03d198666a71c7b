package lexical

import (
	"math"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestVector(t *testing.T) {
	// Terms: commit, commit, test, commit, push → 5 terms, 3 distinct.
	v := Vector("Committing the tests; commits, committed before pushing")
	want := map[uint32]float64{
		Hash("commit"): TF(3, 5),
		Hash("test"):   TF(1, 5),
		Hash("push"):   TF(1, 5),
	}
	checkVector(t, v, want)
	if e := Vector("the and of"); e.Len() != 0 || e.Values == nil && e.Indices != nil {
		t.Errorf("vector of stopwords = %+v, want empty", e)
	}
}

func TestQueryVector(t *testing.T) {
	q := QueryVector("commit COMMITS and tests")
	checkVector(t, q, map[uint32]float64{Hash("commit"): 1, Hash("test"): 1})
	if q.Len() != 2 {
		t.Errorf("query vector has %d entries, want 2", q.Len())
	}
	// An identifier is its whole (weight 1) and its parts sharing a weight
	// of 1; a part also said as a word keeps weight 1.
	id := QueryVector("fix the import cycle in metrics-exporter")
	checkVector(t, id, map[uint32]float64{Hash("fix"): 1, Hash("import"): 1, Hash("cycl"): 1,
		Hash("metrics-exporter"): 1, Hash("metric"): 0.5, Hash("export"): 0.5})
	camel := QueryVector("getUserName and the user")
	checkVector(t, camel, map[uint32]float64{Hash("getusername"): 1, Hash("get"): 1.0 / 3, Hash("user"): 1, Hash("name"): 1.0 / 3})
	// An irregular verb in any form also asks for its other forms (Porter2
	// leaves "drew" and "went" as they are); not in an identifier's parts.
	drew := QueryVector("What does her drawing symbolise? Where did she go?")
	checkVector(t, drew, map[uint32]float64{Hash("draw"): 1, Hash("drew"): 1, Hash("drawn"): 1, Hash("symbolis"): 1,
		Hash("go"): 1})
	if drew.Len() != 5 {
		t.Errorf("query vector has %d entries, want 5", drew.Len())
	}
	went := QueryVector("she drew")
	checkVector(t, went, map[uint32]float64{Hash("drew"): 1, Hash("draw"): 1, Hash("drawn"): 1})
	// A "mis-" word also asks for its root at half its weight (prefixed.go);
	// words that only begin with "mis" do not.
	mis := QueryVector("the hydration mismatch and a misconfigured proxy")
	checkVector(t, mis, map[uint32]float64{Hash("hydrat"): 1, Hash("mismatch"): 1, Hash("match"): 0.5,
		Hash("misconfigur"): 1, Hash("configur"): 0.5, Hash("proxi"): 1})
	if mis.Len() != 6 {
		t.Errorf("query vector has %d entries, want 6", mis.Len())
	}
	for q, root := range map[string]string{"a mistake": "take", "the missing file": "sing", "mischief": "chief", "our mission": "sion"} {
		v := QueryVector(q)
		for _, h := range v.Indices {
			if h == Hash(root) {
				t.Errorf("QueryVector(%q) asks for %q", q, root)
			}
		}
	}
}

func TestMemoryVector(t *testing.T) {
	m := memory.Memory{Content: "Prefers tabs", Key: "editor/indent", Tags: []string{"style", "tabs"}}
	// prefer, tab, editor/indent, editor, indent, style, tab → 7 terms.
	checkVector(t, MemoryVector(m), map[uint32]float64{
		Hash("prefer"):        TF(1, 7),
		Hash("tab"):           TF(2, 7),
		Hash("editor/indent"): TF(1, 7),
		Hash("editor"):        TF(1, 7),
		Hash("indent"):        TF(1, 7),
		Hash("style"):         TF(1, 7),
	})
	// A role tag is not indexed: "user" in every user turn would match
	// every question about a user.
	role := m
	role.Tags = append(slices.Clone(m.Tags), memory.RoleTag("user"))
	if got, want := MemoryVector(role), MemoryVector(m); !slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Values, want.Values) {
		t.Errorf("a role tag changed the vector: %v, want %v", got, want)
	}
	same := m
	same.Importance, same.Layer = 0.9, memory.LayerCore
	if !SameText(m, same) {
		t.Error("SameText: a change outside content, key and tags counted")
	}
	for _, change := range []func(*memory.Memory){
		func(x *memory.Memory) { x.Content = "Prefers spaces" },
		func(x *memory.Memory) { x.Key = "editor/tabs" },
		func(x *memory.Memory) { x.Tags = []string{"style"} },
	} {
		other := m
		other.Tags = slices.Clone(m.Tags)
		change(&other)
		if SameText(m, other) {
			t.Errorf("SameText missed a change: %+v", other)
		}
	}
}

// checkVector compares v with want (index → value) and checks the indices
// ascend strictly.
func checkVector(t *testing.T, v SparseVector, want map[uint32]float64) {
	t.Helper()
	if len(v.Indices) != len(v.Values) {
		t.Fatalf("%d indices but %d values", len(v.Indices), len(v.Values))
	}
	if len(v.Indices) != len(want) {
		t.Errorf("vector has %d entries, want %d: %+v", len(v.Indices), len(want), v)
	}
	for i, idx := range v.Indices {
		if i > 0 && idx <= v.Indices[i-1] {
			t.Errorf("indices not strictly ascending at %d: %v", i, v.Indices)
		}
		w, ok := want[idx]
		if !ok {
			t.Errorf("unexpected index %#x", idx)
			continue
		}
		if math.Abs(float64(v.Values[i])-w) > 1e-6 {
			t.Errorf("index %#x = %v, want %v", idx, v.Values[i], w)
		}
	}
}
