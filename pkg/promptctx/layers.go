package promptctx

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/scope"
)

// scopeOnlyWeight discounts a memory brought in only by its scope glob
// matching the file, against memories recall found for the query.
const scopeOnlyWeight = 0.4

// candidate is a memory competing for a place in one layer.
type candidate struct {
	mem       *memory.Memory
	score     float64
	relevance float64
	scope     scope.Fit
}

func (c candidate) included() Included {
	return Included{Score: c.score, Relevance: c.relevance, ScopeMatch: c.scope == scope.Match, Memory: *c.mem}
}

func (a *Assembler) boost(f scope.Fit) float64 {
	if f == scope.Match {
		return a.cfg.ScopeBoost
	}
	return 1
}

// byScore orders candidates best first, ties by id, so blocks are stable.
func byScore(x, y candidate) int {
	if c := cmp.Compare(y.score, x.score); c != 0 {
		return c
	}
	return strings.Compare(x.mem.ID, y.mem.ID)
}

// baseline is layer A (004): policies, architecture and preferences of high
// priority or above, highest priority first, then by standing score.
func (as *assembly) baseline(vis []memory.Memory) {
	fits := as.fits
	a := as.a
	var cs []candidate
	for i := range vis {
		m := &vis[i]
		switch m.Type {
		case memory.TypePolicy, memory.TypeArchitecture, memory.TypePreference:
		default:
			continue
		}
		if fits[i] == scope.Out || as.dir[i] || a.priority(m) < priorityHigh {
			continue
		}
		cs = append(cs, candidate{mem: m, score: a.standing(m, as.now) * a.boost(fits[i]), scope: fits[i]})
	}
	slices.SortFunc(cs, func(x, y candidate) int {
		if c := cmp.Compare(a.priority(y.mem), a.priority(x.mem)); c != 0 {
			return c
		}
		return byScore(x, y)
	})
	for _, c := range cs[:min(len(cs), a.cfg.MaxBaseline)] {
		if as.full(secBaseline) {
			break
		}
		as.take(secBaseline, "", "- ["+string(c.mem.Type)+"] "+flatten(c.mem.Content)+"\n", c.included())
	}
}

// contextual is layer B: recall's results for the query rescored by 004's
// type weight × decay × reinforcement, plus memories scoped to the file,
// capped per domain (000). It returns the procedures it met, for layer C.
func (as *assembly) contextual(vis []memory.Memory, recalled []recall.Result, queried bool) []candidate {
	fits := as.fits
	a := as.a
	var cs, procs []candidate
	seen := map[string]bool{}
	for i := range recalled {
		r := &recalled[i]
		m := &r.Memory
		fit := scope.FitOf(m.Scope, as.file)
		if !injectable(m, as.view) || fit == scope.Out || isDirective(m) {
			continue
		}
		seen[m.ID] = true
		scale := a.decay(m, as.now) * reinforcement(m) * a.boost(fit)
		if isProcedure(m) {
			procs = append(procs, candidate{mem: m, score: r.Score * scale, relevance: r.Score, scope: fit})
			continue
		}
		cs = append(cs, candidate{mem: m, score: r.Score * typeWeight(a.priority(m)) * scale, relevance: r.Score, scope: fit})
	}
	for i := range vis {
		m := &vis[i]
		switch {
		case seen[m.ID] || as.dir[i]:
		case !queried && as.file == "" && isProcedure(m):
			// No task context: every procedure competes on its record.
			procs = append(procs, candidate{mem: m, score: a.decay(m, as.now) * reinforcement(m), scope: fits[i]})
		case fits[i] != scope.Match:
		case isProcedure(m):
			procs = append(procs, candidate{mem: m, score: scopeOnlyWeight * a.decay(m, as.now) * reinforcement(m) * a.boost(fits[i]), scope: fits[i]})
		default:
			cs = append(cs, candidate{mem: m, score: scopeOnlyWeight * a.standing(m, as.now) * a.boost(fits[i]), scope: fits[i]})
		}
	}
	slices.SortFunc(cs, byScore)
	perDomain := map[string]int{}
	n := 0
	for _, c := range cs {
		if n >= a.cfg.MaxContextual || c.score < a.cfg.MinContextual || as.full(secContextual) {
			break
		}
		if perDomain[c.mem.Domain] >= a.cfg.PerDomain {
			continue
		}
		if as.take(secContextual, c.mem.Domain, "- "+flatten(c.mem.Content)+"\n", c.included()) {
			perDomain[c.mem.Domain]++
			n++
		}
	}
	return procs
}

// procedures is layer C (004): the top workflows and procedures for the
// task, proven ones (success_count > 0) first.
func (as *assembly) procedures(procs []candidate) {
	slices.SortFunc(procs, func(x, y candidate) int {
		px, py := x.mem.SuccessCount > 0, y.mem.SuccessCount > 0
		if px != py {
			if px {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		if c := cmp.Compare(y.mem.SuccessCount, x.mem.SuccessCount); c != 0 {
			return c
		}
		return strings.Compare(x.mem.ID, y.mem.ID)
	})
	for _, c := range procs {
		if as.p.count(secProcedures) >= as.a.cfg.Procedures || as.full(secProcedures) {
			break
		}
		line := "- " + flatten(c.mem.Content)
		if n := c.mem.SuccessCount; n > 0 {
			line += fmt.Sprintf(" (worked %d %s)", n, plural(n, "time", "times"))
		}
		as.take(secProcedures, "", line+"\n", c.included())
	}
}

// directive is the subject's personality directive (001), the one of the
// request's namespace first, then the newest.
func (as *assembly) directive(vis []memory.Memory, subject, namespace string) {
	fits := as.fits
	var cs []candidate
	for i := range vis {
		if m := &vis[i]; as.dir[i] && m.Subject == subject && fits[i] != scope.Out {
			cs = append(cs, candidate{mem: m, score: 1, scope: fits[i]})
		}
	}
	slices.SortFunc(cs, func(x, y candidate) int {
		if xo, yo := x.mem.Namespace == namespace, y.mem.Namespace == namespace; xo != yo {
			if xo {
				return -1
			}
			return 1
		}
		if c := y.mem.ModifiedAt.Compare(x.mem.ModifiedAt); c != 0 {
			return c
		}
		return strings.Compare(x.mem.ID, y.mem.ID)
	})
	for _, c := range cs {
		if as.take(secDirective, "", flatten(c.mem.Content)+"\n", c.included()) {
			return
		}
	}
}

// knownTypes are the tacit memories of 001's "What You Know".
var knownTypes = []memory.Type{memory.TypePreference, memory.TypeStyle, memory.TypeEntity,
	memory.TypeDecision, memory.TypeArtifact, memory.TypeFact}

// known is 001's "What You Know": confident tacit memories by decay score,
// style observations capped so they do not crowd facts out.
func (as *assembly) known(vis []memory.Memory) {
	fits := as.fits
	a := as.a
	var cs []candidate
	for i := range vis {
		m := &vis[i]
		if !slices.Contains(knownTypes, m.Type) || fits[i] == scope.Out || as.dir[i] ||
			confidence(m) < a.cfg.MinConfidence || as.used[m.ID] {
			continue
		}
		cs = append(cs, candidate{mem: m, score: knownScore(m, as.now) * a.boost(fits[i]), scope: fits[i]})
	}
	slices.SortFunc(cs, func(x, y candidate) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		if c := cmp.Compare(y.mem.Importance, x.mem.Importance); c != 0 {
			return c
		}
		return strings.Compare(x.mem.ID, y.mem.ID)
	})
	styles := 0
	for _, c := range cs {
		if as.p.count(secKnown) >= a.cfg.MaxKnown || as.full(secKnown) {
			break
		}
		style := isStyle(c.mem)
		if style && styles >= a.cfg.MaxStyle {
			continue
		}
		line := "- " + flatten(c.mem.Content) + "\n"
		if k := memory.NormalizeKey(c.mem.Key); k != "" {
			line = "- " + k + ": " + flatten(c.mem.Content) + "\n"
		}
		if as.take(secKnown, "", line, c.included()) && style {
			styles++
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
