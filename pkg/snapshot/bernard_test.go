package snapshot

import (
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestBernard(t *testing.T) {
	f, err := os.Open("testdata/bernard_memories.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	mems, err := Bernard(f, BernardOptions{Namespace: "laptop", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 3 {
		t.Fatalf("converted %d entries, want 3", len(mems))
	}
	ts := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name       string
		got        memory.Memory
		bernardID  string
		content    string
		domain     string
		typ        memory.Type
		source     memory.Source
		created    time.Time
		accesses   int
		lastAccess time.Time
	}{
		{"tool usage", mems[0], "1707000000000-a1b2c3", "npm run build compiles TypeScript to dist/ directory",
			memory.DomainToolUsage, memory.TypeWorkflow, memory.SourceCompaction, ts("2025-02-14T10:00:00Z"), 3, ts("2025-02-14T12:00:00Z")},
		{"preference without lastAccessed", mems[1], "1707000000001-d4e5f6", "User prefers concise answers without preamble",
			memory.DomainUserPreferences, memory.TypePreference, memory.SourceExit, ts("2025-02-15T09:30:00Z"), 0, time.Time{}},
		{"legacy entry without domain is general", mems[2], "1706000000000-legacy", "The project deploys to Fly.io from the main branch",
			memory.DomainGeneral, memory.TypeFact, memory.SourceCompaction, ts("2024-01-23T08:00:00Z"), 7, ts("2025-01-02T03:04:05.678Z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.got
			if m.ID != memory.DeterministicID("bernard", tt.bernardID) || !slices.Equal(m.SourceIDs, []string{"bernard:" + tt.bernardID}) {
				t.Errorf("id %s, sources %v: not derived from Bernard's id %s", m.ID, m.SourceIDs, tt.bernardID)
			}
			if m.Content != tt.content || m.Domain != tt.domain || m.Type != tt.typ || m.Kind != tt.typ.DefaultKind() || m.Source != tt.source {
				t.Errorf("got content %q domain %s type %s kind %s source %s", m.Content, m.Domain, m.Type, m.Kind, m.Source)
			}
			if !m.CreatedAt.Equal(tt.created) || !m.ModifiedAt.Equal(tt.created) || !m.ValidFrom.Equal(tt.created) {
				t.Errorf("created %v modified %v valid from %v, want %v", m.CreatedAt, m.ModifiedAt, m.ValidFrom, tt.created)
			}
			if m.AccessCount != tt.accesses || !m.LastAccessed.Equal(tt.lastAccess) {
				t.Errorf("access count %d last %v, want %d %v", m.AccessCount, m.LastAccessed, tt.accesses, tt.lastAccess)
			}
			if m.Namespace != "laptop" || m.Layer != memory.LayerWorking || m.Confidence != memory.ConfidenceInferred || m.RepetitionCount != 1 {
				t.Errorf("namespace %s layer %s confidence %v repetitions %d", m.Namespace, m.Layer, m.Confidence, m.RepetitionCount)
			}
			// A vector of the wrong width is dropped, to be embedded again.
			if len(m.Vector) != 0 || m.EmbeddingModel != "" {
				t.Errorf("vector of %d dims, model %q; want none", len(m.Vector), m.EmbeddingModel)
			}
			m.Tenant = "acme"
			if err := m.Validate(); err != nil {
				t.Errorf("converted record is invalid: %v", err)
			}
		})
	}

	t.Run("a 384-dimension embedding is kept", func(t *testing.T) {
		vec := strings.TrimSuffix(strings.Repeat("0.05,", bernardDim), ",")
		mems, err := Bernard(strings.NewReader(`[{"id":"x","fact":"f","embedding":[`+vec+`],"createdAt":"2025-01-01T00:00:00Z"}]`), BernardOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(mems[0].Vector) != bernardDim || mems[0].EmbeddingModel != BernardModel || mems[0].Namespace != memory.DefaultNamespace {
			t.Fatalf("vector %d dims, model %q, namespace %q", len(mems[0].Vector), mems[0].EmbeddingModel, mems[0].Namespace)
		}
	})

	t.Run("bad files", func(t *testing.T) {
		for _, in := range []string{`{"id": "not an array"}`, `[{"fact": "no id"}]`, `[{"id": 7}]`, ``} {
			if _, err := Bernard(strings.NewReader(in), BernardOptions{}); err == nil {
				t.Errorf("%q converted without error", in)
			}
		}
	})

	t.Run("missing createdAt takes the given time", func(t *testing.T) {
		mems, err := Bernard(strings.NewReader(`[{"id":"y","fact":"f"}]`), BernardOptions{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if !mems[0].CreatedAt.Equal(now) {
			t.Fatalf("created %v, want %v", mems[0].CreatedAt, now)
		}
	})
}

// TestBernardEachStreams: entries reach fn as they are read, before the
// end of the file, so a converter holds one entry at a time. A reader that
// fails after the first entry still delivers it.
func TestBernardEachStreams(t *testing.T) {
	first := `[{"id":"a","fact":"first fact"},`
	r := io.MultiReader(strings.NewReader(first), iotest.ErrReader(errors.New("disk gone")))
	var got []string
	err := BernardEach(r, BernardOptions{}, func(m memory.Memory) error {
		got = append(got, m.Content)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("BernardEach = %v, want the reader's error", err)
	}
	if len(got) != 1 || got[0] != "first fact" {
		t.Fatalf("entries before the failure: %q, want the first", got)
	}
}
