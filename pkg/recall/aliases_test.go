package recall_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/alias"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// aliasRecaller is a recaller over mems and the subject's aliases, stored
// as the extractor stores them (pkg/alias).
func aliasRecaller(t *testing.T, mems []mem, aliases []alias.Alias, cfg recall.Config) *recall.Recaller {
	t.Helper()
	st := storeOf(t, mems)
	var batch []memory.Memory
	for _, a := range aliases {
		content := alias.Content(a, "")
		vecs, _ := embedtest.Terms{}.Embed(context.Background(), []string{content})
		batch = append(batch, memory.Memory{ID: "alias-" + a.Name + "-" + a.Word, Key: alias.Key(a), Tenant: "acme", Namespace: memory.DefaultNamespace,
			Content: content, Domain: "general", Type: memory.TypeEntity, Kind: memory.KindSemantic, Layer: memory.LayerWorking,
			Importance: 0.9, Tags: []string{alias.Tag}, CreatedAt: testNow.Add(-time.Hour), ModifiedAt: testNow.Add(-time.Hour), Vector: vecs[0]})
	}
	if err := st.Upsert(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	r, err := recall.New(cfg, st, embedtest.Terms{}, domains.Builtin(), func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func aliasRecallIDs(t *testing.T, r *recall.Recaller, query string) []string {
	t.Helper()
	resp, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: query, Dry: true})
	if err != nil {
		t.Fatal(err)
	}
	return ids(resp)
}

// A name the question says brings the word that describes it, and a
// describing word's class brings the names: the turns that say only the
// other side are found. Alias memories themselves are never answers.
func TestRecallExpandsQueryWithAliases(t *testing.T) {
	mems := []mem{
		{id: "chewed", content: "the dog chewed the sofa again"},
		{id: "luna", content: "Luna sleeps on the windowsill all day"},
		{id: "d1", content: "Max Verstappen won the race doing 300"},
		{id: "d2", content: "how is the weather doing today"},
		{id: "d3", content: "the streets in town are busy"},
		{id: "d4", content: "a good band played at the fair"},
	}
	aliases := []alias.Alias{{Name: "Max", Word: "dog", Class: "pet"}, {Name: "Luna", Word: "cat", Class: "pet"}}
	cfg := recall.Config{PerDomain: 2, MaxResults: 2, MinRelevance: 0.05, Candidates: 10}
	on := aliasRecaller(t, mems, aliases, cfg)
	cfg.NoAliases = true
	off := aliasRecaller(t, mems, aliases, cfg)
	for _, c := range []struct{ query, want string }{
		{"how is Max doing", "chewed"},
		{"what are the names of my pets", "luna"},
	} {
		got := aliasRecallIDs(t, on, c.query)
		if !slices.Contains(got, c.want) {
			t.Errorf("%q: recalled %v, want %s through the alias", c.query, got, c.want)
		}
		if slices.ContainsFunc(got, func(id string) bool { return len(id) > 6 && id[:6] == "alias-" }) {
			t.Errorf("%q: recalled an alias memory: %v", c.query, got)
		}
		if got := aliasRecallIDs(t, off, c.query); slices.Contains(got, c.want) {
			t.Errorf("%q: recalled %v with aliases off; the test does not show the expansion", c.query, got)
		}
	}
}

// A question naming two people searches each on its own: the one whose
// memories match fewer of the question's words is found although the
// other's fill both channels' candidates, and the cover puts it in the
// top k.
func TestRecallSearchesEachEntity(t *testing.T) {
	mems := []mem{
		{id: "a1", content: "Arjun handles the database migrations"},
		{id: "a2", content: "Arjun handles the release notes"},
		{id: "a3", content: "Arjun handles what the team asks"},
		{id: "a4", content: "Arjun handles the coffee orders"},
		{id: "b1", content: "Bruno owns the deploys"},
		{id: "b2", content: "Bruno likes green tea"},
		{id: "b3", content: "Bruno rides a bike to work"},
		{id: "b4", content: "Bruno lives in Porto"},
		{id: "b5", content: "Bruno plays the drums"},
	}
	cfg := recall.Config{PerDomain: 9, MaxResults: 3, MinRelevance: 0.05, Candidates: 3}
	split := aliasRecaller(t, mems, nil, cfg)
	cfg.NoEntitySplit = true
	off := aliasRecaller(t, mems, nil, cfg)
	bruno := func(id string) bool { return id[0] == 'b' }
	arjun := func(id string) bool { return id[0] == 'a' }
	q := "What do Arjun and Bruno handle?"
	if got := aliasRecallIDs(t, split, q); !slices.ContainsFunc(got, bruno) || !slices.ContainsFunc(got, arjun) {
		t.Errorf("split: recalled %v, want memories of both in the top 3", got)
	}
	if got := aliasRecallIDs(t, off, q); slices.ContainsFunc(got, bruno) {
		t.Errorf("no split: recalled %v; the test does not show the split", got)
	}
	// One entity named alone is no list: nothing changes.
	if got, want := aliasRecallIDs(t, split, "What does Arjun handle?"), aliasRecallIDs(t, off, "What does Arjun handle?"); !slices.Equal(got, want) {
		t.Errorf("one entity: %v with the split, %v without", got, want)
	}
}

// A question comparing two events one of which has no word the other
// lacks ("the meeting" and "the meeting notes") runs no empty search for it:
// the recall answers (it failed with "query text is empty" before).
func TestRecallComparedEventsWithoutOwnWords(t *testing.T) {
	mems := []mem{
		{id: "m1", content: "The meeting moved to Thursday"},
		{id: "m2", content: "I sent the meeting notes to everyone"},
	}
	r := aliasRecaller(t, mems, nil, recall.Config{PerDomain: 9, MaxResults: 2, MinRelevance: 0.05, Candidates: 3})
	if got := aliasRecallIDs(t, r, "Was the meeting before the meeting notes?"); len(got) == 0 {
		t.Errorf("recalled nothing, want the meeting's memories")
	}
}
