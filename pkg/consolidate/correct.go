package consolidate

import (
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/correction"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// PhaseCorrect is the audit phase of corrections understood without a
// model (issue 19 item 3).
const PhaseCorrect = "correct"

// supersedeCorrections: a correction written since the last epoch
// ("Actually the staging DB is Postgres 15, not MySQL", "the build server
// is no longer Jenkins", "we moved from Jenkins to GitHub Actions")
// supersedes the older active memories of its namespace and subject that it
// contradicts (package correction: the correction's own subject and values
// decide, never wording similarity alone). The older memory is kept with
// invalid_at and the link; the audit log records the correction and the
// reason. A correction that replaced something is promoted out of the
// buffer: it is a deliberate statement. It is a rule at every LLM level.
func (r *run) supersedeCorrections() {
	type corr struct {
		m *memory.Memory
		c correction.Correction
	}
	var cs []corr
	r.each(func(m *memory.Memory) {
		if !active(m) || !r.mutable(m) || !r.changed(m) || !factLike(m) {
			return
		}
		if c, ok := correction.Parse(m.Content); ok {
			cs = append(cs, corr{m, c})
		}
	})
	if len(cs) == 0 {
		return
	}
	// One pass over the tenant: each memory is lowered once and checked
	// against the corrections of its namespace and subject by a cheap
	// substring test before the entities are compared.
	replaced := make([]int, len(cs))
	r.each(func(o *memory.Memory) {
		if !active(o) || !r.mutable(o) || !factLike(o) {
			return
		}
		low := ""
		for i := range cs {
			x := &cs[i]
			if o == x.m || o.Namespace != x.m.Namespace || o.Subject != x.m.Subject || !active(x.m) ||
				newerFirst(x.m, o) > 0 || validSince(o) == validSince(x.m) {
				continue
			}
			if low == "" {
				low = strings.ToLower(o.Content)
			}
			if !x.c.Mentioned(low) || x.c.Subject == "" && !valueLike(o) {
				continue
			}
			ok, why := x.c.Contradicts(o.Content)
			if !ok {
				continue
			}
			r.supersede(o, x.m.ID, PhaseCorrect, fmt.Sprintf("corrected by %s (%q): %s", x.m.ID, clipText(x.m.Content, 120), why), DecidedByRule, "")
			r.inherit(x.m, o)
			replaced[i]++
			return
		}
	})
	for i, x := range cs {
		if replaced[i] > 0 && x.m.Layer == memory.LayerBuffer && active(x.m) {
			r.change(x.m, PhaseCorrect, "promote", fmt.Sprintf("a correction that superseded %d older memories", replaced[i]), DecidedByRule, "",
				func(m *memory.Memory) { m.Layer = memory.LayerWorking })
			r.stats.Promoted++
		}
	}
}

// valueLike: what a correction naming no subject ("we moved from Jenkins
// to GitHub Actions") may replace: facts and decisions, not a preference,
// a policy or a style ("I like Jenkins' UI", "never restart Jenkins by hand").
func valueLike(m *memory.Memory) bool {
	switch m.Type {
	case memory.TypePreference, memory.TypePolicy, memory.TypeStyle, memory.TypePitfall:
		return false
	}
	return true
}

// factLike: keyed facts, preferences and decisions; not episodes,
// transcripts or session notes, which record what was said, not what is.
func factLike(m *memory.Memory) bool {
	return m.Kind != memory.KindEpisodic && m.Type != memory.TypeEpisode && !sessionNote(m) &&
		!hasTag(m, "transcript") && !strings.HasPrefix(m.Key, "transcript")
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
