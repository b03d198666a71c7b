package snapshot

import (
	"flag"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// snapshotFixture is a tenant with people, lore, general knowledge, an
// archived and an invalidated memory, at fixed times.
func snapshotFixture() ([]memory.Memory, time.Time) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	mk := func(id, subject, content, domain string, typ memory.Type, layer memory.Layer, imp float64, age time.Duration) memory.Memory {
		return memory.Memory{ID: id, Tenant: "acme", Namespace: "default", Subject: subject, Content: content, Domain: domain,
			Type: typ, Kind: typ.DefaultKind(), Layer: layer, Importance: imp, Confidence: memory.ConfidenceExplicit,
			Source: memory.SourceTurn, CreatedAt: now.Add(-age), ModifiedAt: now.Add(-age)}
	}
	invalid := now.Add(-time.Hour)
	archived := mk("m09", "alice", "Alice used to prefer light themes", memory.DomainUserPreferences, memory.TypePreference, memory.LayerBuffer, 0.9, day)
	archived.Archived = true
	superseded := mk("m10", "bob", "Bob's laptop runs Windows", memory.DomainGeneral, memory.TypeFact, memory.LayerWorking, 0.8, 2*day)
	superseded.InvalidAt = &invalid
	mems := []memory.Memory{
		mk("m01", "alice", "Alice prefers tabs over spaces", memory.DomainUserPreferences, memory.TypePreference, memory.LayerCore, 0.8, 30*day),
		mk("m02", "alice", "Alice reviews pull requests\nevery morning", memory.DomainGeneral, memory.TypeFact, memory.LayerWorking, 0.5, 2*day),
		mk("m03", "bob", "Bob deploys with make release", memory.DomainToolUsage, memory.TypeWorkflow, memory.LayerWorking, 0.7, 5*day),
		mk("m04", memory.LoreSubject, "The server's mascot is a capybara named Pip", memory.DomainGeneral, memory.TypeFact, memory.LayerCore, 0.6, 90*day),
		mk("m05", memory.LoreSubject, "Fridays are demo days", memory.DomainGeneral, memory.TypeFact, memory.LayerWorking, 0.6, 10*day),
		mk("m06", "", "Never push directly to main", memory.DomainToolUsage, memory.TypePolicy, memory.LayerCore, 1.0, 200*day),
		mk("m07", "", "The build uses Go 1.26 | and make", memory.DomainToolUsage, memory.TypeFact, memory.LayerBuffer, 0.4, 0),
		mk("m08", "", "Staging lives on db-stage-2", memory.DomainGeneral, memory.TypeFact, memory.LayerBuffer, 0.3, day),
		archived, superseded,
	}
	mems[1].ModifiedAt = now.Add(-time.Hour) // modified recently: recency counts from the last change
	return mems, now
}

func TestMarkdownGolden(t *testing.T) {
	mems, now := snapshotFixture()
	got := Markdown(mems, MarkdownOptions{Tenant: "acme", Generated: now, Highlights: 5})
	const golden = "testdata/snapshot.md"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Fatalf("snapshot differs from %s (run with -update after checking):\n%s", golden, got)
	}

	t.Run("input order does not matter", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 5 {
			shuffled := append([]memory.Memory(nil), mems...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if again := Markdown(shuffled, MarkdownOptions{Tenant: "acme", Generated: now, Highlights: 5}); again != got {
				t.Fatalf("shuffled input renders differently:\n%s", again)
			}
		}
	})

	t.Run("empty tenant", func(t *testing.T) {
		const want = "# Memory snapshot: empty\n\nGenerated 2025-06-01T12:00:00Z from 0 memories (0 active; archived and invalidated ones are only counted).\n\n" +
			"## People\n\nNo memories about people.\n\n## Ongoing lore\n\nNo lore.\n\n## Recent highlights\n\nNothing yet.\n\n## Counts\n\n" +
			"| domain | memories | archived |\n|---|---:|---:|\n\n| type | memories | archived |\n|---|---:|---:|\n\n" +
			"| kind | memories | archived |\n|---|---:|---:|\n\n| layer | memories | archived |\n|---|---:|---:|\n"
		if got := Markdown(nil, MarkdownOptions{Tenant: "empty", Generated: now}); got != want {
			t.Fatalf("got:\n%s", got)
		}
	})
}
