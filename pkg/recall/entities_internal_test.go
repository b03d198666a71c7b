package recall

import (
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestQueryEntities(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"What do Arjun and Bruno handle?", []string{"Arjun", "Bruno"}},
		{"Where do recipe-bot and metrics-exporter run?", []string{"recipe-bot", "metrics-exporter"}},
		{"What are Melanie's pets' names?", nil},
		{"When did Jon and Gina visit New York?", []string{"Jon", "Gina"}},
		{"Did Ines, Hana or New York win?", []string{"Ines", "Hana", "New York"}},
		{"What Go version does ledger-api use?", nil},
		{"How is Max doing", nil},
		{"What did I do on Tuesday, May 20?", nil},
		{"what did I say about tabs", nil},
	} {
		if got := queryEntities(c.query); !slices.Equal(got, c.want) {
			t.Errorf("queryEntities(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

func TestCoverEntities(t *testing.T) {
	res := func(id, content string) Result { return Result{Memory: memory.Memory{ID: id, Content: content}} }
	results := []Result{
		res("a1", "Arjun reviews migrations"), res("a2", "Arjun likes tea"), res("a3", "ask Arjun first"),
		res("x", "the build is green"), res("b1", "Bruno owns the deploys"), res("a4", "Arjun again"),
	}
	got := coverEntities(slices.Clone(results), []string{"Arjun", "Bruno"}, 3)
	var order []string
	for _, r := range got {
		order = append(order, r.Memory.ID)
	}
	if want := []string{"a1", "a2", "b1", "a3", "x", "a4"}; !slices.Equal(order, want) {
		t.Fatalf("covered order %v, want %v", order, want)
	}
	// Covered already, or one entity: unchanged.
	if got := coverEntities(slices.Clone(results), []string{"Arjun"}, 3); got[2].Memory.ID != "a3" {
		t.Fatalf("one entity reordered: %v", got[2].Memory.ID)
	}
}

func TestAliasLookupText(t *testing.T) {
	for q, want := range map[string]string{
		"What are Melanie's pets' names?": "Melanie pets",
		"How is Max doing":                "Max",
		"what did I say about tabs":       "",
		"What did my sister buy?":         "sister",
	} {
		if got := aliasLookupText(q); got != want {
			t.Errorf("aliasLookupText(%q) = %q, want %q", q, got, want)
		}
	}
}
