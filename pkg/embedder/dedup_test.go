package embedder

import (
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

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
		{"jaccard passes, cosine does not", []store.Hit{hit("a", "User prefers spaces over tabs.", 0.85)}, "", "a"},
		{"jaccard exactly at the threshold is not above it", []store.Hit{hit("a", "User prefers tabs, width eight.", 0.99)}, "", "a"},
		{"neither", []store.Hit{hit("a", "Deploy with make release.", 0.5)}, "", ""},
		{"a later candidate can be the duplicate", []store.Hit{
			hit("a", "Spacing and tab widths matter to the user.", 0.96),
			hit("b", "The user prefers tabs over spaces.", 0.93)}, "b", ""},
		{"own id is never a candidate", []store.Hit{hit("new", "User prefers tabs over spaces.", 1)}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.classify(newFact, tt.hits)
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
