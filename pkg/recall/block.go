package recall

import (
	"slices"
	"strings"
)

// Block renders the domain-grouped prompt block of 000: a heading per domain
// that has results, in registry order, each memory a bullet.
func (r *Recaller) Block(results []Result) string {
	if len(results) == 0 {
		return ""
	}
	byDomain := map[string][]string{}
	for _, res := range results {
		// Transcript chunks are searchable but never injected (Nebo), and
		// archived memories are never auto-injected.
		if res.Memory.Archived || slices.Contains(res.Memory.Tags, TranscriptTag) {
			continue
		}
		byDomain[res.Memory.Domain] = append(byDomain[res.Memory.Domain], res.Memory.Content)
	}
	if len(byDomain) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Recalled Context\nReference only if directly relevant to the current discussion.\n")
	seen := map[string]bool{}
	write := func(id, heading string) {
		lines := byDomain[id]
		if len(lines) == 0 || seen[id] {
			return
		}
		seen[id] = true
		b.WriteString("\n### " + heading + "\n")
		for _, l := range lines {
			b.WriteString("- " + strings.ReplaceAll(l, "\n", " ") + "\n")
		}
	}
	for _, d := range r.domains.All() {
		write(d.ID, d.Heading)
	}
	for _, res := range results { // domains outside the registry, in rank order
		write(res.Memory.Domain, r.domains.Get(res.Memory.Domain).Heading)
	}
	return b.String()
}
