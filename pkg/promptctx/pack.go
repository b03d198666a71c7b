package promptctx

import (
	"cmp"
	"slices"
	"strings"
)

// section is one titled part of a prompt text. Sections are given in
// priority order: earlier ones are filled first and emptied last.
type section struct {
	key   string
	title func(n int) string // heading lines for n entries, each ending in "\n"
	// inline joins the entries with ", " on the title's line (Triggers);
	// otherwise each entry is its own line(s), ending in "\n".
	inline bool
	// heading, when set, groups entries under "### heading" sub-headings,
	// ordered by rank, then by first appearance (Recalled Context).
	heading func(group string) (text string, rank int)
	// limit bounds the section's own tokens; 0 means only the total budget
	// does, a negative limit keeps the section empty.
	limit int
}

// entry is one memory's (or topic's, or trigger's) text in a section:
// it is in or out whole.
type entry struct {
	text   string
	group  string
	tokens int // the entry's own tokens, as admitted
	ref    int // caller's index for what the entry stands for
}

// packer fills sections under a token budget. add admits an entry when
// what it adds to the text fits: BPE merges tokens only across the newline
// between two lines, so that is counted with the line before as context.
// fit then counts the rendered text exactly and drops entries from the last
// non-empty section until the text, the sum of its sections and every
// section's limit all fit, which covers the cases the local count misses.
// Sections are meant to be filled in order.
type packer struct {
	tok      Tokenizer
	budget   int
	sections []section
	entries  [][]entry
	tails    []string // the last line of each section as filled
	tailToks []int    // and its tokens
	spent    []int    // tokens per section as filled
	total    int
}

func newPacker(tok Tokenizer, budget int, sections []section) *packer {
	return &packer{tok: tok, budget: budget, sections: sections, entries: make([][]entry, len(sections)),
		tails: make([]string, len(sections)), tailToks: make([]int, len(sections)), spent: make([]int, len(sections))}
}

// add admits text to section s if it fits; it reports whether it did.
func (p *packer) add(s int, group, text string, ref int) bool {
	sec := &p.sections[s]
	if sec.limit < 0 {
		return false
	}
	own := p.tok.Count(text)
	// Joining a line to the one before saves at most a token or two where
	// newlines merge, so a line this much over the room left cannot fit.
	if own > p.budget-p.total+mergeSlack {
		return false
	}
	first := len(p.entries[s]) == 0
	var cost, join int
	tail, tailToks := text, own // the last line once text is in
	switch {
	case sec.inline && first:
		tail = sec.title(1) + text + "\n"
		cost = p.tok.Count(tail)
		tailToks = cost
	case sec.inline: // the line grows; its start is context enough
		cost = p.tok.Count(", " + text)
		tail, tailToks = p.tails[s], p.tailToks[s]
	default:
		piece := text
		if sec.heading != nil && !slices.ContainsFunc(p.entries[s], func(e entry) bool { return e.group == group }) {
			h, _ := sec.heading(group)
			piece = "\n### " + h + "\n" + text
		}
		if first {
			cost = p.tok.Count(sec.title(1) + piece)
		} else {
			cost = p.tok.Count(p.tails[s]+piece) - p.tailToks[s]
		}
	}
	if first {
		if prev := p.before(s); prev >= 0 {
			head := sec.title(1)
			join = max(0, p.tok.Count(p.tails[prev]+"\n"+head)-p.tailToks[prev]-p.tok.Count(head))
		}
	}
	if p.total+cost+join > p.budget || sec.limit > 0 && p.spent[s]+cost > sec.limit {
		return false
	}
	p.entries[s] = append(p.entries[s], entry{text: text, group: group, tokens: own, ref: ref})
	p.tails[s], p.tailToks[s] = tail, tailToks
	p.spent[s] += cost
	p.total += cost + join
	return true
}

// mergeSlack bounds the tokens a line can save by joining the one before.
const mergeSlack = 4

// before is the last non-empty section ahead of s, or -1.
func (p *packer) before(s int) int {
	for i := s - 1; i >= 0; i-- {
		if len(p.entries[i]) > 0 {
			return i
		}
	}
	return -1
}

// count is how many entries section s holds.
func (p *packer) count(s int) int { return len(p.entries[s]) }

// fit drops entries until the exact counts fit, and returns the text, its
// tokens and the tokens of each section.
func (p *packer) fit() (string, int, []int) {
	for {
		parts := make([]string, len(p.sections))
		counts := make([]int, len(p.sections))
		sum := 0
		over := -1
		for i := range p.sections {
			parts[i] = p.render(i)
			counts[i] = p.tok.Count(parts[i])
			sum += counts[i]
			if lim := p.sections[i].limit; lim != 0 && counts[i] > max(lim, 0) && over < 0 {
				over = i
			}
		}
		text := joinSections(parts)
		total := p.tok.Count(text)
		if over < 0 && total <= p.budget && sum <= p.budget {
			return text, total, counts
		}
		if over < 0 {
			over = p.lastNonEmpty()
		}
		if over < 0 { // only possible with a non-positive budget
			return "", 0, make([]int, len(p.sections))
		}
		p.entries[over] = p.entries[over][:len(p.entries[over])-1]
	}
}

func (p *packer) lastNonEmpty() int {
	for i := len(p.entries) - 1; i >= 0; i-- {
		if len(p.entries[i]) > 0 {
			return i
		}
	}
	return -1
}

// render is section i's text, "" when it has no entries.
func (p *packer) render(i int) string {
	es := p.entries[i]
	if len(es) == 0 {
		return ""
	}
	sec := p.sections[i]
	var b strings.Builder
	b.WriteString(sec.title(len(es)))
	switch {
	case sec.inline:
		for j, e := range es {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.text)
		}
		b.WriteByte('\n')
	case sec.heading != nil:
		type grp struct {
			key  string
			rank int
		}
		var groups []grp // in order of first appearance, kept among equal ranks
		for _, e := range es {
			if !slices.ContainsFunc(groups, func(g grp) bool { return g.key == e.group }) {
				_, rank := sec.heading(e.group)
				groups = append(groups, grp{e.group, rank})
			}
		}
		slices.SortStableFunc(groups, func(x, y grp) int { return cmp.Compare(x.rank, y.rank) })
		for _, g := range groups {
			h, _ := sec.heading(g.key)
			b.WriteString("\n### " + h + "\n")
			for _, e := range es {
				if e.group == g.key {
					b.WriteString(e.text)
				}
			}
		}
	default:
		for _, e := range es {
			b.WriteString(e.text)
		}
	}
	return b.String()
}

// joinSections puts a blank line between non-empty sections.
func joinSections(parts []string) string {
	var keep []string
	for _, s := range parts {
		if s != "" {
			keep = append(keep, s)
		}
	}
	return strings.Join(keep, "\n")
}
