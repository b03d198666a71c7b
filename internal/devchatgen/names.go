package devchatgen

import "fmt"

// CategoryNamed asks which named thing was suggested — a city, a book, a
// conference, a restaurant, a language — when the turn that answers names
// it and shares few of the question's words, while the turn that asked for
// it, and a later one about the same plan, repeat those words and name
// nothing ("Which city did you suggest for the team offsite?" — "I'd go
// with Porto: direct flights from most places"). Planted when Options.Names
// is set (the devchat-names set).
const CategoryNamed = "named"

// namedDef is a named thing the assistant suggests: the user's request (%[1]s
// the project), the assistant's replies (%[2]s the name), a later turn about
// the same plan, and the question (%s the project).
type namedDef struct {
	names    []string
	request  string
	replies  []string
	later    string
	question string
}

var namedDefs = []namedDef{
	{[]string{"Lisbon", "Porto", "Valencia", "Krakow", "Tallinn", "Ljubljana"},
		"The team offsite for %[1]s is next month and we still need a city that is easy to reach.",
		[]string{"I'd go with %[2]s: direct flights from most places, and it's mild in spring.", "%[2]s would work well, it's cheap and the venues are good."},
		"The team offsite for %[1]s is confirmed for next month, I'll send the agenda around.",
		"Which city did you suggest for the %s team offsite?"},
	{[]string{"Designing Data-Intensive Applications", "The Pragmatic Programmer", "A Philosophy of Software Design", "Working Effectively with Legacy Code"},
		"New hires on %[1]s keep asking for a book to read about designing systems like ours.",
		[]string{"Give them a copy of %[2]s; it covers most of what they will meet here.", "I'd hand them %[2]s, it is the best start."},
		"Two new hires start on %[1]s next week, they will want something to read.",
		"Which book did you recommend for the new hires on %s?"},
	{[]string{"GopherCon EU", "KubeCon", "FOSDEM", "QCon London", "PyCon Italia"},
		"I want to give a talk about %[1]s this year and need a conference that fits.",
		[]string{"Submit it to %[2]s, the call for papers is open until next month.", "%[2]s is a good fit for that talk; their audience runs systems like this."},
		"The talk about %[1]s is drafted, the slides are half done.",
		"Which conference did you suggest for the talk about %s?"},
	{[]string{"Casa Lola", "Trattoria Sole", "Blue Lotus", "Kimchi House", "Le Petit Zinc"},
		"We're celebrating the launch of %[1]s with a team dinner and need a restaurant near the office.",
		[]string{"Try %[2]s, they take group bookings and have a quiet room.", "%[2]s has a private room for groups, I'd book that."},
		"The team dinner for the launch of %[1]s is on Thursday, everyone is coming.",
		"Which restaurant did you suggest for the %s launch dinner?"},
	{[]string{"Rust", "Kotlin", "Elixir", "Zig", "OCaml"},
		"We might rewrite the parser of %[1]s and I'm unsure which language to use.",
		[]string{"I'd pick %[2]s for the parser: strong types and fast enough.", "For the parser I would use %[2]s, the tooling is good now."},
		"The parser rewrite of %[1]s is on hold until next quarter.",
		"Which language did you suggest for the parser rewrite of %s?"},
}

var namedAcks = []string{"Makes sense, thanks for the update.", "Good, keep me posted.", "Noted.", "Sounds like a plan."}

// namedFact is one planted suggestion: the exchange naming it and the later
// turn about the same plan.
type namedFact struct {
	def         namedDef
	project     string
	name        string
	said, later *planned
}

// planNames plants four suggestions, each asked for and named in one
// session, and spoken of again without the name in a later one.
func (g *convGen) planNames() {
	r := g.r
	n := len(g.dates)
	for _, d := range distinct(r, namedDefs, 4) {
		p := pick(r, g.projects)
		name := pick(r, d.names)
		first := 1 + r.IntN(max(1, n-1))
		f := &namedFact{def: d, project: p.name, name: name}
		f.said = g.place(first, exchange{fmt.Sprintf(d.request, p.name), fmt.Sprintf(pick(r, d.replies), p.name, name)})
		f.later = g.place(first+1+r.IntN(n-first), exchange{fmt.Sprintf(d.later, p.name), pick(r, namedAcks)})
		g.names = append(g.names, f)
	}
}

// namedQuestions asks about what planNames planted.
func (g *convGen) namedQuestions(holding func(string, ...*planned) []string, add func(cat, q, answer string, evidence, stale []string) error) error {
	for _, f := range g.names {
		if err := add(CategoryNamed, fmt.Sprintf(f.def.question, f.project), f.name, holding(f.name, f.said), nil); err != nil {
			return err
		}
	}
	return nil
}
