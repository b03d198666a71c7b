package devchatgen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/recollect-dev/recollect/pkg/eval"
)

// Options size a generated set.
type Options struct {
	Seed                     uint64
	Conversations            int
	MinSessions, MaxSessions int
	MinTurns, MaxTurns       int // per session, before facts are added
	// Anchor is the fixed "now" of the set: every conversation ends within
	// ten days before it.
	Anchor time.Time
	// Classes plants issue 21's classes as well (classes.go): the
	// devchat-classes set.
	Classes bool
	// Aliases plants pets and relatives known by name and by word
	// (aliases.go): the devchat-aliases set.
	Aliases bool
	// Names plants suggestions of named things (names.go): the
	// devchat-names set.
	Names bool
}

// DefaultOptions are the committed set's.
func DefaultOptions() Options {
	return Options{Seed: 20250602, Conversations: 10, MinSessions: 6, MaxSessions: 10, MinTurns: 20, MaxTurns: 40,
		Anchor: time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)}
}

// ClassesOptions are the committed devchat-classes set's.
func ClassesOptions() Options {
	o := DefaultOptions()
	o.Seed, o.Classes = 20251128, true
	return o
}

// AliasesOptions are the committed devchat-aliases set's.
func AliasesOptions() Options {
	o := DefaultOptions()
	o.Seed, o.Aliases = 20261128, true
	return o
}

// NamesOptions are the committed devchat-names set's.
func NamesOptions() Options {
	o := DefaultOptions()
	o.Seed, o.Names = 20261129, true
	return o
}

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Conversations < 1 || o.Conversations > len(users):
		return fmt.Errorf("conversations must be between 1 and %d (got %d)", len(users), o.Conversations)
	case o.MinSessions < 3 || o.MaxSessions < o.MinSessions || o.MaxSessions > len(ordinals):
		return fmt.Errorf("sessions must satisfy 3 <= min <= max <= %d (got %d..%d)", len(ordinals), o.MinSessions, o.MaxSessions)
	case o.MinTurns < 4 || o.MaxTurns < o.MinTurns:
		return fmt.Errorf("turns must satisfy 4 <= min <= max (got %d..%d)", o.MinTurns, o.MaxTurns)
	case o.Anchor.IsZero():
		return errors.New("anchor is required")
	}
	return nil
}

// Generate builds the set: the same options give the same set.
func Generate(o Options) (*eval.DevChat, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	name := "devchat"
	if o.Classes {
		name = "devchat-classes"
	}
	if o.Aliases {
		name = "devchat-aliases"
	}
	if o.Names {
		name = "devchat-names"
	}
	set := &eval.DevChat{Name: name, Version: 1, Seed: o.Seed, Anchor: o.Anchor,
		Generator: "github.com/recollect-dev/recollect/internal/devchatgen", License: "Apache-2.0"}
	order := rand.New(rand.NewPCG(o.Seed, 0)).Perm(len(users))
	for i := range o.Conversations {
		g := &convGen{o: o, r: rand.New(rand.NewPCG(o.Seed, uint64(i)+1)),
			id: fmt.Sprintf("dc-%02d", i+1), user: users[order[i]]}
		c, err := g.build()
		if err != nil {
			return nil, fmt.Errorf("conversation %s: %w", g.id, err)
		}
		set.Conversations = append(set.Conversations, c)
	}
	return set, nil
}

// planned is an exchange placed in a session; ids are its two turns'.
// more are exchanges laid out right after it, in order (a thread the
// exchange belongs to), moreIDs their turns'.
type planned struct {
	session int
	ex      exchange
	ids     [2]string
	more    []exchange
	moreIDs [][2]string
}

// exchanges are the planned exchange and the ones that follow it.
func (p *planned) exchanges() []exchange { return append([]exchange{p.ex}, p.more...) }

// turnIDs are the ids of every turn of p, in order.
func (p *planned) turnIDs() []string {
	out := []string{p.ids[0], p.ids[1]}
	for _, ids := range p.moreIDs {
		out = append(out, ids[0], ids[1])
	}
	return out
}

type chain struct {
	slot    slot
	project project
	values  []string
	steps   []*planned
}

type placedFact struct {
	fact
	at *planned
}

// convGen builds one conversation.
type convGen struct {
	o        Options
	r        *rand.Rand
	id, user string
	projects []project
	dates    []time.Time // session starts, index 0 is session 1
	asOf     time.Time
	bySess   map[int][]*planned
	chains   []*chain
	facts    []*placedFact
	cls      *classes     // nil unless Options.Classes
	aliases  []*aliasFact // Options.Aliases
	names    []*namedFact // Options.Names
}

func (g *convGen) build() (eval.DevChatConversation, error) {
	r := g.r
	g.projects = distinct(r, projects, 2+r.IntN(2))
	g.planDates()
	g.bySess = map[int][]*planned{}
	g.planChains()
	g.planFacts()
	if g.o.Classes {
		g.planClasses()
	}
	if g.o.Aliases {
		g.planAliases()
	}
	if g.o.Names {
		g.planNames()
	}
	c := eval.DevChatConversation{ID: g.id, User: g.user, Assistant: assistantName}
	for _, p := range g.projects {
		c.Projects = append(c.Projects, p.name)
	}
	for s := 1; s <= len(g.dates); s++ {
		c.Sessions = append(c.Sessions, g.session(s))
	}
	last := c.Sessions[len(c.Sessions)-1].Turns
	g.asOf = last[len(last)-1].TS.Add(30 * time.Minute).Truncate(time.Minute)
	c.AsOf = g.asOf
	qs, err := g.questions(&c)
	if err != nil {
		return c, err
	}
	c.Questions = qs
	return c, nil
}

// planDates spreads the sessions over three to nine weeks that end within
// ten days before the anchor, one session a day at most.
func (g *convGen) planDates() {
	r := g.r
	n := g.o.MinSessions + r.IntN(g.o.MaxSessions-g.o.MinSessions+1)
	end := g.o.Anchor.AddDate(0, 0, -1-r.IntN(10))
	span := 21 + r.IntN(43)
	offsets := map[int]bool{0: true, span: true}
	for len(offsets) < n {
		offsets[1+r.IntN(span-1)] = true
	}
	var days []int
	for d := range offsets {
		days = append(days, d)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(days)))
	for _, d := range days {
		day := end.AddDate(0, 0, -d)
		g.dates = append(g.dates, day.Add(time.Duration(8+r.IntN(9))*time.Hour+time.Duration(r.IntN(60))*time.Minute))
	}
}

func (g *convGen) place(session int, ex exchange) *planned {
	p := &planned{session: session, ex: ex}
	g.bySess[session] = append(g.bySess[session], p)
	return p
}

// sessionsFor picks n distinct sessions in order.
func (g *convGen) sessionsFor(n int) []int {
	s := g.r.Perm(len(g.dates))[:n]
	for i := range s {
		s[i]++
	}
	sort.Ints(s)
	return s
}

func (g *convGen) planChains() {
	r := g.r
	type want struct {
		s slot
		p project
	}
	var wants []want
	for _, p := range g.projects {
		for _, s := range distinct(r, slots, 2+r.IntN(2)) {
			wants = append(wants, want{s, p})
		}
	}
	wants = append(wants, want{editorSlot, project{}})
	for _, w := range wants {
		n := 2
		if r.IntN(10) < 3 && len(g.dates) >= 4 {
			n = 3
		}
		sessions := g.sessionsFor(n)
		values := w.s.values(r, w.p, n, g.dates[sessions[0]-1])
		if len(values) < 2 {
			continue
		}
		c := &chain{slot: w.s, project: w.p, values: values}
		for i, v := range values {
			old := ""
			if i > 0 {
				old = values[i-1]
			}
			c.steps = append(c.steps, g.place(sessions[i], w.s.say(r, w.p, v, old)))
		}
		g.chains = append(g.chains, c)
	}
}

func (g *convGen) planFacts() {
	r := g.r
	add := func(sessions []int, facts []fact) {
		for i, f := range facts {
			pf := &placedFact{fact: f}
			pf.at = g.place(sessions[i%len(sessions)], f.ex)
			g.facts = append(g.facts, pf)
		}
	}
	n := len(g.dates)
	var errs, decisions, artifacts, prefs, statics []fact
	usedErr, usedDec, usedArt, usedStat := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for len(errs) < min(n, 4+r.IntN(2)) {
		p := pick(r, g.projects)
		e := pick(r, errorsFor(r, p))
		if key := p.name + e.key; !usedErr[key] {
			usedErr[key] = true
			errs = append(errs, fact{kind: "error", project: p.name, ex: exchange{e.user, e.fix}, answer: e.answer,
				question: fmt.Sprintf("How did we fix %s in %s?", e.key, p.name), about: "error"})
		}
	}
	for len(decisions) < min(n, 3+r.IntN(2)) {
		p := pick(r, g.projects)
		d := pick(r, decisionsFor(r, p))
		if key := p.name + d.answer; !usedDec[key] {
			usedDec[key] = true
			decisions = append(decisions, fact{kind: "decision", project: p.name,
				ex: exchange{fmt.Sprintf("Let's settle a convention for %s: %s.", p.name, d.statement),
					fmt.Sprintf("Agreed, for %s: %s. I'd write it down in the ADR folder so nobody relitigates it.", p.name, d.statement)},
				answer: d.answer, question: fmt.Sprintf("What did we decide about %s in %s?", d.topic, p.name), about: "convention"})
		}
	}
	for len(artifacts) < 3+r.IntN(2) {
		p := pick(r, g.projects)
		a := pick(r, artifactsFor(r, p))
		if key := p.name + a.name; !usedArt[key] {
			usedArt[key] = true
			artifacts = append(artifacts, fact{kind: "artifact", project: p.name, ex: exchange{a.request, a.code}, answer: a.answer,
				question: fmt.Sprintf(pick(r, []string{"Show me the %s you wrote for %s.", "Where is the %s we made for %s?"}), a.name, p.name)})
		}
	}
	for _, pr := range distinct(r, preferences, 3) {
		prefs = append(prefs, fact{kind: "preference", ex: exchange{"One thing about how I work: " + pr.statement + ".", "Noted, I'll stick to that."},
			answer: pr.answer, question: pr.question})
	}
	for len(statics) < 3 {
		p := pick(r, g.projects)
		s := pick(r, staticsFor(r, p))
		if !usedStat[s.question] {
			usedStat[s.question] = true
			statics = append(statics, fact{kind: "static", project: p.name, ex: exchange{"FYI, " + s.statement + ".", "Thanks, good to have that written down."},
				answer: s.answer, question: s.question})
		}
	}
	// At most one error and one decision a session, so that a session's
	// date names them.
	add(g.sessionsFor(len(errs)), errs)
	add(g.sessionsFor(len(decisions)), decisions)
	for _, group := range [][]fact{artifacts, prefs, statics} {
		for _, f := range group {
			add([]int{1 + r.IntN(n)}, []fact{f})
		}
	}
}

// session lays out one session: filler around the planned exchanges, one
// turn after another at realistic gaps.
func (g *convGen) session(s int) eval.DevChatSession {
	r := g.r
	plannedEx := g.bySess[s]
	total := (g.o.MinTurns + r.IntN(g.o.MaxTurns-g.o.MinTurns+1)) / 2
	focus := pick(r, g.projects)
	exs := make([]*planned, 0, total+len(plannedEx))
	for range max(0, total-len(plannedEx)) {
		exs = append(exs, &planned{session: s, ex: filler(r, focus)})
	}
	for _, p := range plannedEx {
		i := r.IntN(len(exs) + 1)
		exs = append(exs[:i], append([]*planned{p}, exs[i:]...)...)
	}
	out := eval.DevChatSession{Number: s, Start: g.dates[s-1]}
	ts := g.dates[s-1]
	for _, p := range exs {
		p.moreIDs = nil
		for j, ex := range p.exchanges() {
			var ids [2]string
			for k, text := range []string{ex.user, ex.assistant} {
				role, speaker, gap := "user", g.user, 30+r.IntN(300)
				if k == 1 {
					role, speaker, gap = "assistant", assistantName, 5+r.IntN(40)
				}
				if len(out.Turns) > 0 {
					ts = ts.Add(time.Duration(gap) * time.Second)
				}
				id := fmt.Sprintf("D%d:%d", s, len(out.Turns)+1)
				ids[k] = id
				out.Turns = append(out.Turns, eval.DevChatTurn{ID: id, Role: role, Speaker: speaker, TS: ts, Text: text})
			}
			if j == 0 {
				p.ids = ids
			} else {
				p.moreIDs = append(p.moreIDs, ids)
			}
		}
	}
	return out
}
