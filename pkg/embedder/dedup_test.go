package embedder

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// sameWithoutMerges classifies again without looking for a merge
// candidate (no LLM) and wants the same duplicate and kept-apart hit as
// with, and no merge candidate.
func sameWithoutMerges(t *testing.T, e *Embedder, m memory.Memory, hits []store.Hit, with match) {
	t.Helper()
	without := e.classify(m, hits, false)
	id := func(m *memory.Memory) string {
		if m == nil {
			return ""
		}
		return m.ID
	}
	apart := func(k *keptApart) string {
		if k == nil {
			return ""
		}
		return k.id + ": " + k.verdict.Reason
	}
	if id(without.dup) != id(with.dup) || apart(without.apart) != apart(with.apart) || without.merge != nil {
		t.Fatalf("without merges: dup %q apart %q merge %v; with: dup %q apart %q",
			id(without.dup), apart(without.apart), without.merge, id(with.dup), apart(with.apart))
	}
}

func TestClassifyRule(t *testing.T) {
	e := &Embedder{cfg: testConfig()}
	newFact := memory.Memory{ID: "new", Content: "User prefers tabs over spaces."}
	hit := func(id, content string, score float64) store.Hit {
		return store.Hit{Memory: memory.Memory{ID: id, Content: content}, Score: score}
	}
	tests := []struct {
		name      string
		hits      []store.Hit
		dup, merg string
	}{
		{"cosine and jaccard pass", []store.Hit{hit("a", "Tabs are preferred to spaces by the user.", 0.93)}, "a", ""},
		{"cosine passes, jaccard does not", []store.Hit{hit("a", "The user likes using tabs instead of spaces.", 0.95)}, "", "a"},
		{"jaccard passes, cosine does not", []store.Hit{hit("a", "User prefers tabs over spaces in Go.", 0.85)}, "", "a"},
		{"the other way round is no candidate", []store.Hit{hit("a", "User prefers spaces over tabs.", 0.97)}, "", ""},
		{"jaccard exactly at the threshold is not above it", []store.Hit{hit("a", "User prefers tabs, width eight.", 0.99)}, "", "a"},
		{"neither", []store.Hit{hit("a", "Deploy with make release.", 0.5)}, "", ""},
		{"a later candidate can be the duplicate", []store.Hit{
			hit("a", "Spacing and tab widths matter to the user.", 0.96),
			hit("b", "The user prefers tabs over spaces.", 0.93)}, "b", ""},
		{"own id is never a candidate", []store.Hit{hit("new", "User prefers tabs over spaces.", 1)}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.classify(newFact, tt.hits, true)
			var dup, merg string
			if got.dup != nil {
				dup = got.dup.ID
			}
			if got.merge != nil && got.dup == nil {
				merg = got.merge.Memory.ID
			}
			if dup != tt.dup || merg != tt.merg {
				t.Fatalf("dup %q merge %q, want %q %q", dup, merg, tt.dup, tt.merg)
			}
			sameWithoutMerges(t, e, newFact, tt.hits, got)
		})
	}
}

// TestClassifyDetails: past the similarity screen, only a hit saying the
// same thing is a near duplicate; a richer one may be merged; a conflicting
// or different one is neither, and is reported as kept apart.
func TestClassifyDetails(t *testing.T) {
	e := &Embedder{cfg: testConfig()}
	newFact := memory.Memory{ID: "new", Content: "The service uses Postgres 16 in production."}
	invalid := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	hit := func(id, content string, score float64) store.Hit {
		return store.Hit{Memory: memory.Memory{ID: id, Content: content}, Score: score}
	}
	superseded := func(h store.Hit) store.Hit {
		h.Memory.InvalidAt, h.Memory.SupersededBy = &invalid, "newer"
		return h
	}
	archived := func(h store.Hit) store.Hit {
		h.Memory.Archived = true
		return h
	}
	keyed := func(h store.Hit, key string) store.Hit {
		h.Memory.Key = key
		return h
	}
	same := hit("same", "The service uses postgres 16 in production!", 0.97)
	older := hit("older", "The service uses Postgres 15 in production.", 0.98)
	poorer := hit("poorer", "The service uses Postgres in production.", 0.95)
	tests := []struct {
		name             string
		hits             []store.Hit
		dup, merg, apart string
		key              string // of the new fact
	}{
		{"same thing folds", []store.Hit{same}, "same", "", "", ""},
		{"a differing number is kept apart, not merged", []store.Hit{older}, "", "", "older", ""},
		{"a later hit saying the same thing folds", []store.Hit{older, same}, "same", "", "", ""},
		{"the fact adds a detail: merge, not fold", []store.Hit{poorer}, "", "poorer", "poorer", ""},
		{"a conflicting hit is skipped for the merge", []store.Hit{older, poorer}, "", "poorer", "older", ""},
		{"another key is kept apart", []store.Hit{keyed(same, "db")}, "", "", "same", "database"},
		{"the same key folds", []store.Hit{keyed(same, "Database")}, "same", "", "", "database"},
		{"a current duplicate wins over a superseded one", []store.Hit{superseded(hit("old-same", "The service uses Postgres 16 in production.", 0.99)), same}, "same", "", "", ""},
		{"a superseded duplicate is folded into (and revived)", []store.Hit{superseded(same)}, "same", "", "", ""},
		{"no merge into a superseded memory", []store.Hit{superseded(poorer)}, "", "", "poorer", ""},
		{"no merge into an archived memory", []store.Hit{archived(poorer)}, "", "", "poorer", ""},
		{"below the screen a conflicting hit is no merge candidate", []store.Hit{hit("older", "The service uses Postgres 15 in production.", 0.85)}, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newFact
			m.Key = tt.key
			got := e.classify(m, tt.hits, true)
			sameWithoutMerges(t, e, m, tt.hits, got)
			var dup, merg, apart string
			if got.dup != nil {
				dup = got.dup.ID
			}
			if got.merge != nil && got.dup == nil {
				merg = got.merge.Memory.ID
			}
			if got.apart != nil && got.dup == nil {
				apart = got.apart.id
				if got.apart.verdict.Folds() || got.apart.verdict.Reason == "" {
					t.Fatalf("kept apart with verdict %+v", got.apart.verdict)
				}
			}
			if dup != tt.dup || merg != tt.merg || apart != tt.apart {
				t.Fatalf("dup %q merge %q apart %q, want %q %q %q", dup, merg, apart, tt.dup, tt.merg, tt.apart)
			}
		})
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"User prefers tabs over spaces.", "the user PREFERRED tab over the spaces", 1},
		{"User prefers tabs, width eight.", "User prefers tabs over spaces.", 0.5},
		{"a the of", "and or", 1},
		{"deploy", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			if got := jaccard(termSet(tt.a), termSet(tt.b)); got != tt.want {
				t.Fatalf("jaccard = %g, want %g", got, tt.want)
			}
		})
	}
}

// TestDedupPathsWithTheModel runs real pairs through the handler: only a
// pair passing both the Jaccard pre-filter and the cosine is one memory.
func TestDedupPathsWithTheModel(t *testing.T) {
	tests := []struct {
		name, first, second string
		memories            int
	}{
		// cosine 0.93, Jaccard 0.43
		{"cosine without jaccard inserts", "User prefers tabs over spaces.", "The user likes using tabs instead of spaces.", 2},
		// cosine 0.78, Jaccard 0.67
		{"jaccard without cosine inserts", "Deploy the api service with make release.", "Deploy the web service with make release.", 2},
		// cosine 0.93, Jaccard 1
		{"both reinforce", "User prefers tabs over spaces.", "Tabs are preferred to spaces by the user.", 1},
		// Past the screen, the details decide: cosines 0.92 to 0.99.
		{"case and punctuation fold", "The user's editor for writing Go code is Vim.", "the user's editor for writing go code is vim!", 1},
		{"a time written otherwise folds", "The nightly backup job runs at 3 pm every day.", "The nightly backup job runs at 15:00 every day.", 1},
		{"a number word folds", "The team runs three servers for the api in production.", "The team runs 3 servers for the api in production.", 1},
		{"postgres 15 vs 16 is kept", "The api service uses Postgres 15 in production.", "The api service uses Postgres 16 in production.", 2},
		{"friday vs monday is kept", "The team deploys the api service to production on Friday.", "The team deploys the api service to production on Monday.", 2},
		{"65% vs 78% is kept", "Test coverage of the api service must stay above 65%.", "Test coverage of the api service must stay above 78%.", 2},
		{"another path is kept", "The config for the api lives in /etc/api/config.yaml on every host.", "The config for the api lives in /etc/api/settings.yaml on every host.", 2},
		{"tabs over spaces the other way round is kept", "The user prefers tabs over spaces.", "The user prefers spaces over tabs.", 2},
		{"another lowercase language is kept", "The frontend is written in typescript with react.", "The frontend is written in javascript with react.", 2},
		{"another url is kept", "Docs for the api live at https://docs.example.com/api on the wiki.", "Docs for the api live at https://wiki.example.com/api on the wiki.", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if err := f.handle(t, fact(tt.first, "acme:e1")); err != nil {
				t.Fatal(err)
			}
			if err := f.handle(t, fact(tt.second, "acme:e2")); err != nil {
				t.Fatal(err)
			}
			mems := f.all(t)
			if len(mems) != tt.memories {
				t.Fatalf("%d memories, want %d", len(mems), tt.memories)
			}
			if tt.memories == 1 && mems[0].RepetitionCount != 2 {
				t.Fatalf("repetition %d, want 2", mems[0].RepetitionCount)
			}
			if strings.HasSuffix(tt.name, "is kept") {
				if got := counterValue(t, f.e.outcomes.WithLabelValues("distinct_detail")); got != 1 {
					t.Fatalf("distinct_detail counted %g times, want 1", got)
				}
			}
		})
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"jaccard negative", func(c *Config) { c.DedupJaccard = -0.1 }},
		{"jaccard one", func(c *Config) { c.DedupJaccard = 1 }},
		{"cosine zero", func(c *Config) { c.DedupThreshold = 0 }},
		{"cosine above one", func(c *Config) { c.DedupThreshold = 1.1 }},
		{"merge above dedup", func(c *Config) { c.MergeThreshold = 0.95 }},
		{"merge zero", func(c *Config) { c.MergeThreshold = 0 }},
		{"no candidates", func(c *Config) { c.DedupCandidates = 0 }},
		{"overlap not below chunk", func(c *Config) { c.Chunk.OverlapChars = c.Chunk.MaxChars }},
		{"reindex batch", func(c *Config) { c.ReindexBatch = 0 }},
	}
	base := testConfig()
	if err := base.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testConfig()
			tt.edit(&c)
			if err := c.Validate(); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// explicitFact is fact n of the many-facts test: templated statements
// that share most words and differ in their numbers and codes, as an
// agent's explicit memories often do.
func explicitFact(n int, source string) memory.FactMessage {
	templates := []string{
		"Fact number %d: the user's laptop choice for project P%d is option %d, decided at the planning review.",
		"Fact number %d: the preferred database for service S%d is Postgres version %d, agreed with the platform team.",
		"Fact number %d: the weekly sync for project P%d happens in meeting room %d on the second floor.",
		"Fact number %d: the cloud budget for project P%d is capped at %d percent of the quarterly total.",
	}
	content := fmt.Sprintf(templates[n%len(templates)], n, n, (n*37)%97+1)
	m := fact(content, source)
	m.Memory.Source, m.Memory.Type, m.Memory.Domain = memory.SourceAPI, memory.TypeFact, "facts"
	return m
}

// TestManyDistinctFactsAreAllKept posts 300 distinct facts whose real
// (MiniLM) cosines and word overlaps pass the near-duplicate screen for
// many pairs: each is its own memory. Posted again from other events,
// each is reinforced once and still 300 memories are stored.
func TestManyDistinctFactsAreAllKept(t *testing.T) {
	const n = 300
	f := newFixture(t)
	for i := 1; i <= n; i++ {
		if err := f.handle(t, explicitFact(i, fmt.Sprintf("acme:a%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(f.all(t)); got != n {
		t.Fatalf("%d memories after %d distinct facts, want %d", got, n, n)
	}
	if got := counterValue(t, f.e.outcomes.WithLabelValues("distinct_detail")); got == 0 {
		t.Fatal("no fact was kept apart by its details: the test no longer exercises the screen")
	}
	for i := 1; i <= n; i++ {
		if err := f.handle(t, explicitFact(i, fmt.Sprintf("acme:b%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	mems := f.all(t)
	if len(mems) != n {
		t.Fatalf("%d memories after posting the facts twice, want %d", len(mems), n)
	}
	for _, m := range mems {
		if m.RepetitionCount != 2 || len(m.SourceIDs) != 2 {
			t.Fatalf("memory %q: repetition %d, sources %v; want 2 and 2", m.Content, m.RepetitionCount, m.SourceIDs)
		}
	}
}
