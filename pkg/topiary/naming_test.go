package topiary

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
	"github.com/recollect-dev/recollect/pkg/topics"
	"github.com/recollect-dev/recollect/pkg/usage"
)

var topicIDRe = regexp.MustCompile(`\[(t[0-9a-f]{12})\]`)

// promptIDs are the topic ids a naming request asks for.
func promptIDs(req llmtest.Request) []string {
	var ids []string
	for _, m := range topicIDRe.FindAllStringSubmatch(req.User(), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// nameEach answers a naming request with "Topic <id>" for every id asked.
func nameEach(req llmtest.Request) llmtest.Reply {
	names := map[string]string{}
	for _, id := range promptIDs(req) {
		names[id] = "Topic " + id
	}
	return llmtest.JSON(map[string]any{"names": names})
}

type recorder struct {
	mu   sync.Mutex
	recs []usage.Record
}

func (r *recorder) Record(_ context.Context, rec usage.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
}

func newClientRec(t *testing.T, srv *llmtest.Server, rec llm.Recorder) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{URL: srv.URL(), Model: "default-model", Models: map[llm.Tier]string{llm.TierNaming: "naming-model"},
		MaxRetries: 1, Timeout: 5 * time.Second}, rec, nil, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newClient(t *testing.T, srv *llmtest.Server) *llm.Client { return newClientRec(t, srv, nil) }

// distinctTexts are n memories sharing no words, so each is its own topic.
func distinctTexts(n, from int) []string {
	out := make([]string, n)
	for i := range out {
		var ws []string
		for j := range 4 {
			k := (from+i)*4 + j
			ws = append(ws, "w"+string(rune('a'+k%26))+string(rune('a'+k/26%26))+string(rune('a'+k/676%26))+"x")
		}
		out[i] = strings.Join(ws, " ")
	}
	return out
}

func load(t *testing.T, m *Topiary, tenant string) saved {
	t.Helper()
	s, err := m.trees.load(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func nodeNames(tree topics.Tree) map[string]string {
	out := map[string]string{}
	for _, n := range allNodes(tree) {
		out[n.ID] = n.Name
	}
	return out
}

func TestNamingChangedTopics(t *testing.T) {
	e := newEnv(t)
	srv := llmtest.New(t)
	srv.Handle(nameEach)
	rec := &recorder{}
	m := e.module(t, testConfig(), WithLLM(newClientRec(t, srv, rec)))
	ctx := context.Background()
	e.put(t, "acme", 0, distinctTexts(70, 0)...)

	if err := m.Rebuild(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	first := load(t, m, "acme")
	names := nodeNames(first.Tree)
	if len(names) <= 2*namingBatch {
		t.Fatalf("only %d topics: the test needs more than two batches", len(names))
	}
	reqs := srv.Requests()
	if want := (len(names) + namingBatch - 1) / namingBatch; len(reqs) != want {
		t.Fatalf("%d naming calls for %d topics, want %d", len(reqs), len(names), want)
	}
	asked := map[string]int{}
	for _, r := range reqs {
		ids := promptIDs(r)
		if len(ids) > namingBatch || r.Model != "naming-model" || r.ResponseFormat != "json_object" {
			t.Fatalf("request of %d topics, model %q, format %q", len(ids), r.Model, r.ResponseFormat)
		}
		for _, id := range ids {
			asked[id]++
		}
	}
	for id, name := range names {
		if asked[id] != 1 || name != "Topic "+id {
			t.Fatalf("topic %s asked %d times, named %q", id, asked[id], name)
		}
	}
	// Leaves first: the first batch names leaves only.
	for _, id := range promptIDs(reqs[0]) {
		if n, _ := first.Find(id); !n.Leaf() {
			t.Fatalf("first batch names parent %s before all leaves", id)
		}
	}
	if len(first.LLMNamed) != len(names) {
		t.Fatalf("%d topics saved as LLM-named, want %d", len(first.LLMNamed), len(names))
	}
	rec.mu.Lock()
	for _, r := range rec.recs {
		if r.Component != "naming" || r.Tenant != "acme" || r.Model != "naming-model" {
			t.Fatalf("usage record %+v, want component naming for acme", r)
		}
	}
	if len(rec.recs) != len(reqs) {
		t.Fatalf("%d usage records for %d calls", len(rec.recs), len(reqs))
	}
	rec.mu.Unlock()

	// One more memory: only the topics whose members changed are named
	// again, with the kept names as context.
	e.put(t, "acme", 70, distinctTexts(1, 70)...)
	if err := m.Rebuild(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	second := load(t, m, "acme")
	again := srv.Requests()[len(reqs):]
	if len(again) == 0 {
		t.Fatal("no naming call for the changed topics")
	}
	var renamed []string
	for _, r := range again {
		renamed = append(renamed, promptIDs(r)...)
		if !strings.Contains(r.User(), "Existing topic names (do not reuse):\n") {
			t.Fatalf("no existing names in the prompt:\n%s", r.User())
		}
	}
	// A topic keeps its id while substantially the same (topics.KeepIDs),
	// but only one with the very same members keeps its name.
	kept := 0
	for id, name := range nodeNames(second.Tree) {
		_, before := names[id]
		if before {
			was, _ := first.Find(id)
			now, _ := second.Find(id)
			before = sameMembers(was, now)
		}
		switch {
		case before && slices.Contains(renamed, id):
			t.Fatalf("unchanged topic %s named again", id)
		case !before && !slices.Contains(renamed, id):
			t.Fatalf("new or changed topic %s not named", id)
		case before:
			kept++
			if !strings.Contains(again[0].User(), "- "+name+"\n") {
				t.Fatalf("kept name %q not given as context", name)
			}
		}
		if name != "Topic "+id {
			t.Fatalf("topic %s named %q", id, name)
		}
	}
	if kept == 0 || counter(t, m.naming, "kept") != float64(kept) {
		t.Fatalf("%d topics kept their names, counted %g", kept, counter(t, m.naming, "kept"))
	}

	// Nothing changed: no call at all.
	n := len(srv.Requests())
	if err := m.Rebuild(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Requests()); got != n {
		t.Fatalf("%d naming calls for an unchanged tree", got-n)
	}
	if got := nodeNames(load(t, m, "acme").Tree); fmt.Sprint(got) != fmt.Sprint(nodeNames(second.Tree)) {
		t.Fatalf("names changed without a change: %v", got)
	}
}

func TestNamingFallback(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		reply func(ids []string) llmtest.Reply
		bad   func(ids []string) []string // topics left with word names
	}{
		{"prose instead of JSON", func([]string) llmtest.Reply { return llmtest.Text("These are about deployments and invoices.") },
			func(ids []string) []string { return ids }},
		{"server error", func([]string) llmtest.Reply { return llmtest.Status(500) },
			func(ids []string) []string { return ids }},
		{"some names empty, too long, duplicate or missing", func(ids []string) llmtest.Reply {
			names := map[string]string{}
			for i, id := range ids {
				names[id] = "Topic " + id
				switch i {
				case 0:
					names[id] = "  "
				case 1:
					names[id] = strings.Repeat("x", maxNameChars+1)
				case 3:
					names[id] = "topic " + ids[2] // the name of the one before
				case 4:
					delete(names, id)
				}
			}
			names["tnotasked0000"] = "Stray"
			return llmtest.JSON(map[string]any{"names": names})
		}, func(ids []string) []string { return []string{ids[0], ids[1], ids[3], ids[4]} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.put(t, "acme", 0, distinctTexts(12, 0)...)
			words := e.module(t, testConfig()) // no LLM: the word names
			if err := words.Rebuild(ctx, "acme"); err != nil {
				t.Fatal(err)
			}
			wordNames := nodeNames(load(t, words, "acme").Tree)
			if len(load(t, words, "acme").LLMNamed) != 0 {
				t.Fatal("topics saved as LLM-named without an LLM")
			}

			srv := llmtest.New(t)
			var asked []string
			srv.Handle(func(req llmtest.Request) llmtest.Reply {
				asked = promptIDs(req)
				return tt.reply(asked)
			})
			m := e.module(t, testConfig(), WithLLM(newClient(t, srv)))
			if err := m.Rebuild(ctx, "acme"); err != nil {
				t.Fatalf("a naming failure failed the rebuild: %v", err)
			}
			if len(asked) < 5 {
				t.Fatalf("asked for %d topics, the test needs 5", len(asked))
			}
			bad := tt.bad(asked)
			s := load(t, m, "acme")
			for id, name := range nodeNames(s.Tree) {
				isBad := slices.Contains(bad, id)
				if isBad && name != wordNames[id] || !isBad && name != "Topic "+id {
					t.Fatalf("topic %s named %q (word name %q, bad %v)", id, name, wordNames[id], isBad)
				}
				if slices.Contains(s.LLMNamed, id) == isBad {
					t.Fatalf("topic %s: LLM-named %v, bad %v", id, !isBad, isBad)
				}
			}
			if got := counter(t, m.naming, "fallback"); got != float64(len(bad)) {
				t.Fatalf("fallback counted %g, want %d", got, len(bad))
			}

			// The next rebuild offers the word-named topics again, and only them.
			srv.Handle(nameEach)
			calls := len(srv.Requests())
			if err := m.Rebuild(ctx, "acme"); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()[calls:]
			if len(reqs) != 1 {
				t.Fatalf("%d calls to rename the failed topics, want 1", len(reqs))
			}
			if got := promptIDs(reqs[0]); !sameSet(got, bad) {
				t.Fatalf("renamed %v, want the failed %v", got, bad)
			}
			if got := len(load(t, m, "acme").LLMNamed); got != len(wordNames) {
				t.Fatalf("%d LLM-named after the retry, want all %d", got, len(wordNames))
			}
		})
	}
}

func TestNamingBudget(t *testing.T) {
	// A naming call that never answers ends at half the lease: the tree is
	// still saved, with word names, within the lease.
	e := newEnv(t)
	e.put(t, "acme", 0, distinctTexts(6, 0)...)
	srv := llmtest.New(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Delay: time.Hour} })
	m := e.module(t, Config{Debounce: time.Second, MaxDelay: time.Second, LeaseTTL: 2 * time.Second}, WithLLM(newClient(t, srv)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := m.Rebuild(ctx, "acme"); err != nil {
		t.Fatalf("rebuild with a stuck LLM: %v", err)
	}
	s := load(t, m, "acme")
	if len(s.LLMNamed) != 0 || s.Memories != 6 {
		t.Fatalf("saved %d memories, %d LLM-named; want 6 and none", s.Memories, len(s.LLMNamed))
	}
	if got, want := counter(t, m.naming, "fallback"), float64(len(allNodes(s.Tree))); got != want {
		t.Fatalf("fallback counted %g, want %g", got, want)
	}
}

func TestValidName(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"Deployment pipeline", "Deployment pipeline", true},
		{"  \"Invoice  schema\nmigration.\" ", "Invoice schema migration", true},
		{"", "", false},
		{" '' ", "", false},
		{strings.Repeat("é", maxNameChars), strings.Repeat("é", maxNameChars), true},
		{strings.Repeat("é", maxNameChars+1), "", false},
	} {
		got, ok := validName(tt.in)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("validName(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
