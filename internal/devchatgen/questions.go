package devchatgen

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/eval"
)

// questions asks about every chain and fact; evidence are the turns of
// their exchanges that hold the answer.
func (g *convGen) questions(c *eval.DevChatConversation) ([]eval.DevChatQuestion, error) {
	text := map[string]string{}
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			text[t.ID] = t.Text
		}
	}
	holding := func(value string, steps ...*planned) []string {
		var out []string
		for _, p := range steps {
			for _, id := range p.turnIDs() {
				if mentions(text[id], value) {
					out = append(out, id)
				}
			}
		}
		return out
	}
	var qs []eval.DevChatQuestion
	add := func(cat, q, answer string, evidence, stale []string) error {
		if len(evidence) == 0 {
			return fmt.Errorf("question %q: no turn holds %q", q, answer)
		}
		qs = append(qs, eval.DevChatQuestion{ID: fmt.Sprintf("%s-q%03d", g.id, len(qs)+1), Category: cat, Question: q,
			Answer: answer, Evidence: evidence, Stale: stale})
		return nil
	}
	r := g.r
	for _, ch := range g.chains {
		n := len(ch.values)
		cur, last := ch.values[n-1], ch.steps[n-1]
		var stale []string
		for i, step := range ch.steps[:n-1] {
			stale = append(stale, holding(ch.values[i], step)...)
		}
		if err := add(eval.UpdateCategory, ch.slot.ask(r, ch.project), cur, holding(cur, last), stale); err != nil {
			return nil, err
		}
		if r.IntN(2) == 0 {
			if err := add("temporal", ch.slot.askPast(r, ch.project), ch.values[0], holding(ch.values[0], ch.steps...), nil); err != nil {
				return nil, err
			}
		}
		if r.IntN(3) == 0 {
			var ev []string
			for i, step := range ch.steps {
				ev = append(ev, holding(ch.values[i], step)...)
			}
			if err := add("multi-session", ch.slot.askHistory(r, ch.project), strings.Join(ch.values, " → "), ev, nil); err != nil {
				return nil, err
			}
		}
	}
	errorsByProject := map[string][]*placedFact{}
	for _, f := range g.facts {
		ids := f.at.ids[:]
		cat, q := "fact", f.question
		switch f.kind {
		case "error":
			errorsByProject[f.project] = append(errorsByProject[f.project], f)
			cat = "code"
		case "artifact":
			cat = "code"
		case "preference":
			cat, ids = "preference", holding(f.answer, f.at)
		default:
			ids = holding(f.answer, f.at)
		}
		if f.about != "" && r.IntN(2) == 0 {
			if when := g.when(f); when != "" {
				cat = "temporal"
				q = map[string]string{"error": "Which error did I run into %s, and how did we fix it?",
					"convention": "What was the convention we settled %s?"}[f.about]
				q = fmt.Sprintf(q, when)
			}
		}
		if err := add(cat, q, f.answer, ids, nil); err != nil {
			return nil, err
		}
	}
	for _, p := range g.projects {
		errs := errorsByProject[p.name]
		if len(errs) < 2 {
			continue
		}
		var ev, answers []string
		for _, f := range errs {
			ev = append(ev, f.at.ids[:]...)
			answers = append(answers, f.answer)
		}
		if err := add("multi-session", fmt.Sprintf("Which errors have we fixed in %s so far?", p.name), strings.Join(answers, "; "), ev, nil); err != nil {
			return nil, err
		}
	}
	if g.cls != nil {
		if err := g.classQuestions(holding, add); err != nil {
			return nil, err
		}
	}
	if err := g.aliasQuestions(holding, add); err != nil {
		return nil, err
	}
	if err := g.namedQuestions(holding, add); err != nil {
		return nil, err
	}
	return qs, nil
}

// mentions: text has value as a whole word or phrase, any case.
func mentions(text, value string) bool {
	pat := regexp.QuoteMeta(strings.ToLower(value))
	if isWord(value[0]) {
		pat = `\b` + pat
	}
	if isWord(value[len(value)-1]) {
		pat += `\b`
	}
	return regexp.MustCompile(pat).MatchString(strings.ToLower(text))
}

func isWord(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// when names the session of f in words that pick it out among the
// sessions holding facts of the same kind, relative to the conversation's
// as_of where it can: "yesterday", "three days ago", "last week", else "on
// May 12" or "in our second session". "" when nothing fits.
func (g *convGen) when(f *placedFact) string {
	s := f.at.session
	day := g.dates[s-1]
	asOf := g.asOf
	diff := civilDays(day, asOf)
	var forms []string
	switch {
	case diff == 0:
		forms = append(forms, "today", "earlier today")
	case diff == 1:
		forms = append(forms, "yesterday")
	case diff >= 2 && diff < len(smallNumbers):
		forms = append(forms, smallNumbers[diff]+" days ago")
	}
	if g.onlyInLastWeek(f) {
		forms = append(forms, "last week")
	}
	forms = append(forms, "on "+day.Format("January 2"), "in our "+ordinals[s-1]+" session")
	return pick(g.r, forms)
}

// onlyInLastWeek: f's session falls in the calendar week (Monday to
// Sunday) before the one of as_of, and no other fact of its kind does.
func (g *convGen) onlyInLastWeek(f *placedFact) bool {
	in := func(s int) bool {
		wd := (int(g.asOf.Weekday()) + 6) % 7 // days since Monday
		monday := civilDate(g.asOf).AddDate(0, 0, -wd)
		start, end := monday.AddDate(0, 0, -7), monday
		d := civilDate(g.dates[s-1])
		return !d.Before(start) && d.Before(end)
	}
	if !in(f.at.session) {
		return false
	}
	for _, o := range g.facts {
		if o != f && o.about == f.about && in(o.at.session) {
			return false
		}
	}
	return true
}

func civilDate(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func civilDays(from, to time.Time) int { return int(civilDate(to).Sub(civilDate(from)).Hours() / 24) }
