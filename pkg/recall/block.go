package recall

import (
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Block renders the domain-grouped prompt block of 000: a heading per domain
// that has results, in registry order, each memory a bullet.
func (r *Recaller) Block(results []Result) string { return r.BlockAt(results, memory.TimeView{}) }

// BlockAt is Block for a question asked in view v (InjectableAt).
func (r *Recaller) BlockAt(results []Result, v memory.TimeView) string {
	if len(results) == 0 {
		return ""
	}
	byDomain := map[string][]string{}
	for _, res := range results {
		if !InjectableAt(&res.Memory, v) {
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

// Injectable reports whether a memory may go into a prompt block at all,
// whatever a request listed: not archived (004: archived memories never
// auto-inject), not superseded (an invalid_at, past or future, means a
// newer memory replaced it), not quarantined (it looked like an
// instruction aimed at the model), not a transcript chunk (Nebo:
// searchable, never injected), not blank. The recall block, /v1/context and resume
// all ask it.
func Injectable(m *memory.Memory) bool {
	switch {
	case m.Archived, m.Superseded(), m.Quarantined(), slices.Contains(m.Tags, TranscriptTag):
		return false
	}
	return strings.TrimSpace(m.Content) != ""
}
