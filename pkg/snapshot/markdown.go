package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// DefaultHighlights is how many memories "Recent highlights" lists.
const DefaultHighlights = 10

// highlightHalfLife is the age in days at which recency halves a
// highlight's score: Clanker's recency 1 / (1 + age/45).
const highlightHalfLife = 45.0

// MarkdownOptions shape a snapshot.
type MarkdownOptions struct {
	Tenant     string
	Generated  time.Time // the snapshot's time: recency is measured from it
	Highlights int       // DefaultHighlights when not positive
}

// Markdown renders the operator's snapshot of a tenant's memories
// (Clanker's MEMORY.md, 002): people (memories about a user, grouped by
// subject), ongoing lore (subject __lore__), recent highlights (the most
// important recent memories), and counts by domain, type, kind and layer.
// Archived and invalidated memories are counted but not listed. The output
// depends only on its inputs: every list has a total order.
func Markdown(mems []memory.Memory, opts MarkdownOptions) string {
	if opts.Highlights <= 0 {
		opts.Highlights = DefaultHighlights
	}
	active := make([]memory.Memory, 0, len(mems))
	for _, m := range mems {
		if live(m, opts.Generated) {
			active = append(active, m)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory snapshot: %s\n\n", opts.Tenant)
	fmt.Fprintf(&b, "Generated %s from %d memories (%d active; archived and invalidated ones are only counted).\n",
		opts.Generated.UTC().Format(time.RFC3339), len(mems), len(active))
	writePeople(&b, active)
	writeLore(&b, active)
	writeHighlights(&b, active, opts)
	writeCounts(&b, mems)
	return b.String()
}

// live reports whether a memory is shown: not archived, not invalidated by
// the snapshot's time.
func live(m memory.Memory, at time.Time) bool {
	return !m.Archived && (m.InvalidAt == nil || m.InvalidAt.After(at))
}

func isPerson(m memory.Memory) bool { return m.Subject != "" && m.Subject != memory.LoreSubject }

func writePeople(b *strings.Builder, mems []memory.Memory) {
	bySubject := map[string][]memory.Memory{}
	for _, m := range mems {
		if isPerson(m) {
			bySubject[m.Subject] = append(bySubject[m.Subject], m)
		}
	}
	b.WriteString("\n## People\n")
	if len(bySubject) == 0 {
		b.WriteString("\nNo memories about people.\n")
		return
	}
	for _, subject := range sortedKeys(bySubject) {
		facts := bySubject[subject]
		slices.SortFunc(facts, byImportance)
		fmt.Fprintf(b, "\n### %s\n\n", oneLine(subject))
		for _, m := range facts {
			writeItem(b, m)
		}
	}
}

func writeLore(b *strings.Builder, mems []memory.Memory) {
	var lore []memory.Memory
	for _, m := range mems {
		if m.Subject == memory.LoreSubject {
			lore = append(lore, m)
		}
	}
	b.WriteString("\n## Ongoing lore\n\n")
	if len(lore) == 0 {
		b.WriteString("No lore.\n")
		return
	}
	slices.SortFunc(lore, byImportance)
	for _, m := range lore {
		writeItem(b, m)
	}
}

func writeHighlights(b *strings.Builder, mems []memory.Memory, opts MarkdownOptions) {
	type scored struct {
		m     memory.Memory
		score float64
	}
	all := make([]scored, len(mems))
	for i, m := range mems {
		age := max(0, opts.Generated.Sub(latest(m)).Hours()/24)
		all[i] = scored{m, m.Importance / (1 + age/highlightHalfLife)}
	}
	slices.SortFunc(all, func(x, y scored) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		if c := latest(y.m).Compare(latest(x.m)); c != 0 {
			return c
		}
		return cmp.Compare(x.m.ID, y.m.ID)
	})
	fmt.Fprintf(b, "\n## Recent highlights\n\n")
	if len(all) == 0 {
		b.WriteString("Nothing yet.\n")
		return
	}
	for _, s := range all[:min(opts.Highlights, len(all))] {
		m := s.m
		who := ""
		if m.Subject != "" {
			who = " (" + oneLine(m.Subject) + ")"
		}
		fmt.Fprintf(b, "- %s [%s/%s]%s %s\n", latest(m).UTC().Format(time.DateOnly), m.Domain, m.Type, who, oneLine(m.Content))
	}
}

func writeCounts(b *strings.Builder, mems []memory.Memory) {
	b.WriteString("\n## Counts\n")
	tables := []struct {
		title string
		key   func(memory.Memory) string
	}{
		{"domain", func(m memory.Memory) string { return m.Domain }},
		{"type", func(m memory.Memory) string { return string(m.Type) }},
		{"kind", func(m memory.Memory) string { return string(m.Kind) }},
		{"layer", func(m memory.Memory) string { return string(m.Layer) }},
	}
	for _, t := range tables {
		total, archived := map[string]int{}, map[string]int{}
		for _, m := range mems {
			total[t.key(m)]++
			if m.Archived {
				archived[t.key(m)]++
			}
		}
		fmt.Fprintf(b, "\n| %s | memories | archived |\n|---|---:|---:|\n", t.title)
		for _, k := range sortedKeys(total) {
			fmt.Fprintf(b, "| %s | %d | %d |\n", cell(k), total[k], archived[k])
		}
	}
}

// writeItem is one listed memory: its type, content and how sure and
// important it is.
func writeItem(b *strings.Builder, m memory.Memory) {
	fmt.Fprintf(b, "- [%s] %s _(%s, %s, importance %.2f, confidence %.2f)_\n",
		m.Type, oneLine(m.Content), m.Domain, m.Layer, m.Importance, m.Confidence)
}

// byImportance orders most important first, then most recent, then by id.
func byImportance(x, y memory.Memory) int {
	if c := cmp.Compare(y.Importance, x.Importance); c != 0 {
		return c
	}
	if c := latest(y).Compare(latest(x)); c != 0 {
		return c
	}
	return cmp.Compare(x.ID, y.ID)
}

// latest is when a memory last changed.
func latest(m memory.Memory) time.Time {
	if m.ModifiedAt.After(m.CreatedAt) {
		return m.ModifiedAt
	}
	return m.CreatedAt
}

// oneLine keeps a listed value on its line: whitespace runs, newlines
// included, become one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell is a table cell: one line, pipes escaped, "-" when empty.
func cell(s string) string {
	s = strings.ReplaceAll(oneLine(s), "|", `\|`)
	if s == "" {
		return "-"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
