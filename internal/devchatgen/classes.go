package devchatgen

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The classes of issue 21, planted when Options.Classes is set (the
// devchat-classes set): short user facts inside threads of long assistant
// answers, updates inside long technical threads, events told with a
// relative day ("yesterday") and asked about by their date, the order of
// such events, and questions about two people or two projects at once.
const (
	CategoryShortFact    = "short-fact"
	CategoryThreadUpdate = "thread-update"
	CategoryDateAnchored = "date-anchored"
	CategoryEventOrder   = "event-order"
	CategoryMultiEntity  = "multi-entity"
)

// shortFactDef is a short fact the user states inside a long thread on
// its topic.
type shortFactDef struct {
	topic      topic
	values     []string
	statements []string // %[1]s project, %[2]s value
	questions  []string // %s project
}

var shortFacts = []shortFactDef{
	{topicRateLimit, []string{"90 requests per minute", "120 requests per minute", "180 requests per minute", "240 requests per minute", "600 requests per minute"},
		[]string{"Side note: the public API of %[1]s allows %[2]s per key.", "FYI the limit we promised clients of %[1]s is %[2]s."},
		[]string{"What rate limit does the public API of %s have?", "What rate limit did I say the API of %s has?"}},
	{topicRetention, []string{"14 days", "21 days", "30 days", "45 days", "90 days"},
		[]string{"For the record, we keep the logs of %[1]s for %[2]s.", "Compliance says logs of %[1]s are kept %[2]s, no longer."},
		[]string{"How long do we keep the logs of %s?", "What log retention did I say %s has?"}},
	{topicUploads, []string{"10 MB", "25 MB", "50 MB", "100 MB", "250 MB"},
		[]string{"Uploads to %[1]s are capped at %[2]s, that's a product decision.", "Product wants a hard cap of %[2]s per upload in %[1]s."},
		[]string{"What is the maximum upload size of %s?", "How big may a file uploaded to %s be?"}},
	{topicLatency, []string{"150 ms", "200 ms", "250 ms", "300 ms", "400 ms"},
		[]string{"The p99 latency target we agreed for %[1]s is %[2]s.", "Ops wants %[1]s to answer within %[2]s at p99."},
		[]string{"What latency target did we agree on for %s?", "What is the p99 latency goal of %s?"}},
	{topicPaging, []string{"25 items per page", "50 items per page", "100 items per page", "200 items per page"},
		[]string{"The list endpoints of %[1]s return at most %[2]s.", "Heads up, %[1]s caps its list endpoints at %[2]s."},
		[]string{"How many items per page do the list endpoints of %s return?", "What page size did I say %s uses?"}},
	{topicSessions, []string{"8 hours", "12 hours", "24 hours", "7 days", "30 days"},
		[]string{"Login sessions in %[1]s expire after %[2]s.", "Security asked that a login to %[1]s lasts %[2]s at most."},
		[]string{"How long does a login session of %s last?", "When do login sessions of %s expire?"}},
}

var (
	topicPaging = topic{"pagination", "Page", "pagination", []string{
		"How should the list endpoints of %s paginate?",
		"Can you write cursor pagination for the list endpoints of %s?",
		"How do I test the pagination of %s against a large table?"}}
	topicSessions = topic{"login sessions", "Session", "session", []string{
		"How should %s store login sessions?",
		"Can you write the session middleware for %s with renewal?",
		"How do I invalidate every login session of %s when a password changes?"}}
)

// threadSlot is a setting that changes inside long technical threads.
type threadSlot struct {
	topic     topic
	values    []string
	conflict  string // the project setting (slots.go) it would be confused with
	first     string // %[1]s project, %[2]s value
	change    string // %[1]s project, %[2]s old, %[3]s new
	questions []string
	key       string // config key the assistant's snippet sets
}

var threadSlots = []threadSlot{
	{topicCache, []string{"5 minutes", "10 minutes", "20 minutes", "45 minutes", "90 minutes"}, "cache TTL",
		"After profiling I set the response cache of %[1]s to expire after %[2]s.",
		"I changed the response cache expiry of %[1]s from %[2]s to %[3]s, the hit rate was off.",
		[]string{"How long do cached responses of %s live now?", "What is the response cache expiry of %s currently?"}, "cache_expiry"},
	{topicWorkers, []string{"4 workers", "6 workers", "12 workers", "24 workers", "32 workers"}, "worker concurrency",
		"The background worker pool of %[1]s runs %[2]s in production.",
		"I resized the background worker pool of %[1]s from %[2]s to %[3]s after the queue backed up.",
		[]string{"How many workers does the background pool of %s run now?", "What size is the worker pool of %s these days?"}, "pool_size"},
	{topicBatches, []string{"200 rows per batch", "500 rows per batch", "1000 rows per batch", "2500 rows per batch", "5000 rows per batch"}, "",
		"The importer of %[1]s commits %[2]s.",
		"I changed the import of %[1]s from %[2]s to %[3]s, the transactions were too long.",
		[]string{"How many rows per batch does the import of %s commit now?", "What batch size does the importer of %s use currently?"}, "batch_size"},
	{topicRetries, []string{"3 attempts", "4 attempts", "5 attempts", "8 attempts", "10 attempts"}, "",
		"Failed jobs in %[1]s get %[2]s before they go to the dead-letter queue.",
		"I changed the retries of %[1]s from %[2]s to %[3]s before the dead-letter queue, it was hammering the provider.",
		[]string{"How many attempts does a failed job of %s get now?", "What is the retry limit for jobs in %s at the moment?"}, "max_attempts"},
}

// eventDef is something the user did, told a few days later.
type eventDef struct {
	did  string // past tense, %s project: "moved the CI of %s to Buildkite"
	base string // the same in the base form: "move the CI of %s to Buildkite"
	why  string // how the sentence goes on
	// label names it in other words, as questions about order often do:
	// "%s's switch to Buildkite".
	label string
}

var eventDefs = []eventDef{
	{"moved the CI of %s to Buildkite", "move the CI of %s to Buildkite", "; GitHub Actions kept timing out", "%s's switch to Buildkite"},
	{"rotated the database credentials of %s", "rotate the database credentials of %s", " after the scare with the leaked laptop", "the credential rotation of %s"},
	{"turned on Dependabot for %s", "turn on Dependabot for %s", ", so expect a flood of pull requests", "Dependabot for %s"},
	{"set up Sentry for %s", "set up Sentry for %s", " and the first errors are already coming in", "the Sentry rollout for %s"},
	{"gave the demo of %s to the finance team", "give the demo of %s to the finance team", " and it went better than expected", "the finance demo of %s"},
	{"renewed the TLS certificate of %s", "renew the TLS certificate of %s", " by hand because the automation failed", "the certificate renewal of %s"},
	{"shipped version 2 of %s to production", "ship version 2 of %s to production", " without any rollback", "the v2 launch of %s"},
	{"deleted the old staging cluster of %s", "delete the old staging cluster of %s", " which saves us a few hundred a month", "the staging teardown of %s"},
	{"enabled HTTP/2 on the load balancer in front of %s", "enable HTTP/2 on the load balancer in front of %s", ", nothing broke", "HTTP/2 for %s"},
	{"archived the legacy branch of %s", "archive the legacy branch of %s", " after tagging it", "the legacy branch cleanup of %s"},
}

var eventAcks = []string{
	"Nice, one thing less on the list. Anything I should update on my side?",
	"Good to hear. Let me know if anything odd shows up in the next days.",
	"Noted. That was overdue, so well done.",
	"Great, I'll keep that in mind for whatever comes next.",
}

var teammates = []string{"Ines", "Bruno", "Hana", "Mateo", "Olga", "Yusuf", "Chloe", "Arjun", "Freya", "Kenji"}

var roles = []string{
	"owns the deploys of %s", "reviews every database migration of %s", "is on call for %s this quarter",
	"wrote most of the auth code in %s", "handles the customer escalations for %s", "maintains the CI runners %s builds on",
}

var regions = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-2", "ca-central-1"}

// event is a planted event: what was done, on which day, told where.
type event struct {
	did, base, label string
	day              time.Time // the civil day it happened
	at               *planned
}

// classes holds what planClasses planted, for the questions.
type classes struct {
	shortFacts []placedClassFact
	threads    []*threadChain
	events     []*event
	people     []placedClassFact // answer: the role; name: the person
	regions    []placedClassFact // name: the project
}

type placedClassFact struct {
	name, answer, question string
	at                     *planned
}

type threadChain struct {
	slot     threadSlot
	project  project
	values   []string
	steps    []*planned
	question string
}

// planClasses plants the classes (Options.Classes).
func (g *convGen) planClasses() {
	r := g.r
	g.cls = &classes{}
	n := len(g.dates)
	// Short facts: a long question and answer on the topic, the fact
	// and a long answer that does not repeat it, another long exchange.
	for _, d := range distinct(r, shortFacts, 4) {
		p := pick(r, g.projects)
		v := pick(r, d.values)
		asks := distinct(r, d.topic.asks, 2)
		block := g.place(1+r.IntN(n), exchange{fmt.Sprintf(asks[0], p.name), longAnswer(r, p, d.topic)})
		block.more = []exchange{
			{fmt.Sprintf(pick(r, d.statements), p.name, v), longAnswer(r, p, d.topic)},
			{fmt.Sprintf(asks[1], p.name), longAnswer(r, p, d.topic)},
		}
		g.cls.shortFacts = append(g.cls.shortFacts, placedClassFact{answer: v, question: fmt.Sprintf(pick(r, d.questions), p.name), at: block})
	}
	// Thread updates: each value stated inside a long thread, in
	// sessions one after another.
	used := map[string]bool{}
	for _, p := range g.projects {
		for _, s := range distinct(r, threadSlots, len(threadSlots)) {
			if s.conflict == setting(p).name || used[s.topic.key] {
				continue
			}
			used[s.topic.key] = true
			steps := 2
			if r.IntN(3) == 0 && n >= 4 {
				steps = 3
			}
			c := &threadChain{slot: s, project: p, values: distinct(r, s.values, steps), question: fmt.Sprintf(pick(r, s.questions), p.name)}
			for i, sess := range g.sessionsFor(steps) {
				v := c.values[i]
				user := fmt.Sprintf(s.first, p.name, v)
				if i > 0 {
					user = fmt.Sprintf(s.change, p.name, c.values[i-1], v)
				}
				asks := distinct(r, s.topic.asks, 2)
				block := g.place(sess, exchange{fmt.Sprintf(asks[0], p.name), longAnswer(r, p, s.topic)})
				block.more = []exchange{{user, fmt.Sprintf("Then the config becomes:\n\n```yaml\n%s:\n  %s: %s\n```\n\n", s.topic.key, s.key, v) + longAnswer(r, p, s.topic)}}
				if r.IntN(2) == 0 {
					block.more = append(block.more, exchange{fmt.Sprintf(asks[1], p.name), longAnswer(r, p, s.topic)})
				}
				c.steps = append(c.steps, block)
			}
			g.cls.threads = append(g.cls.threads, c)
			break
		}
	}
	g.planEvents()
	// People and regions: one statement each, in any session.
	roleOf := distinct(r, roles, 4)
	for i, name := range distinct(r, teammates, 4) {
		p := g.projects[i%len(g.projects)]
		role := fmt.Sprintf(roleOf[i], p.name)
		at := g.place(1+r.IntN(n), exchange{fmt.Sprintf(pick(r, []string{"Quick context: %s %s, so loop them in when it matters.", "You should know that %s %s."}), name, role),
			fmt.Sprintf("Good to know, I'll mention %s when it comes up.", name)})
		g.cls.people = append(g.cls.people, placedClassFact{name: name, answer: role, at: at})
	}
	for i, reg := range distinct(r, regions, len(g.projects)) {
		p := g.projects[i]
		at := g.place(1+r.IntN(n), exchange{fmt.Sprintf("For the infra notes: %s runs in %s, on two availability zones.", p.name, reg),
			"Noted. Then the latency-sensitive clients should live close to it, and backups should go to a second region."})
		g.cls.regions = append(g.cls.regions, placedClassFact{name: p.name, answer: reg, at: at})
	}
}

// planEvents plants five or six events, each told in a session a few
// days after it happened with a relative day ("yesterday", "on Saturday",
// "three days ago"), on days without a session and no two on one day.
func (g *convGen) planEvents() {
	r := g.r
	sessionDay := map[time.Time]bool{}
	for _, d := range g.dates {
		sessionDay[civilDate(d)] = true
	}
	taken := map[time.Time]bool{}
	defs := distinct(r, eventDefs, len(eventDefs))
	want := 5 + r.IntN(2)
	for _, s := range r.Perm(len(g.dates)) {
		if len(g.cls.events) == want {
			break
		}
		told := g.dates[s]
		for _, k := range r.Perm(5) {
			day := civilDate(told).AddDate(0, 0, -(k + 1))
			if sessionDay[day] || taken[day] {
				continue
			}
			taken[day] = true
			def := defs[len(g.cls.events)]
			p := pick(r, g.projects)
			did, base, label := fmt.Sprintf(def.did, p.name), fmt.Sprintf(def.base, p.name), fmt.Sprintf(def.label, p.name)
			at := g.place(s+1, exchange{fmt.Sprintf("%s I %s%s.", relativeDay(r, day, told), did, def.why), pick(r, eventAcks)})
			g.cls.events = append(g.cls.events, &event{did: did, base: base, label: label, day: day, at: at})
			break
		}
	}
}

// relativeDay names day as said on told (1–5 days later): "Yesterday",
// "Two days ago", "On Saturday", or "Last Saturday" when day falls in the
// calendar week before told's (where "last" cannot mean this week).
func relativeDay(r *rand.Rand, day, told time.Time) string {
	k := civilDays(day, told)
	forms := []string{}
	switch {
	case k == 1:
		return "Yesterday"
	case k == 2:
		forms = append(forms, "Two days ago", "The day before yesterday")
	default:
		forms = append(forms, title(smallNumbers[k])+" days ago")
	}
	forms = append(forms, "On "+day.Weekday().String())
	monday := civilDate(told).AddDate(0, 0, -((int(told.Weekday()) + 6) % 7))
	if day.Before(monday) {
		forms = append(forms, "Last "+day.Weekday().String())
	}
	return pick(r, forms)
}

// classQuestions asks about what planClasses planted.
func (g *convGen) classQuestions(holding func(string, ...*planned) []string, add func(cat, q, answer string, evidence, stale []string) error) error {
	r, cls := g.r, g.cls
	for _, f := range cls.shortFacts {
		if err := add(CategoryShortFact, f.question, f.answer, holding(f.answer, f.at), nil); err != nil {
			return err
		}
	}
	for _, c := range cls.threads {
		n := len(c.values)
		var stale []string
		for i, step := range c.steps[:n-1] {
			stale = append(stale, holding(c.values[i], step)...)
		}
		if err := add(CategoryThreadUpdate, c.question, c.values[n-1], holding(c.values[n-1], c.steps[n-1]), stale); err != nil {
			return err
		}
	}
	for _, e := range cls.events {
		q := fmt.Sprintf(pick(r, []string{"What did I do on %s?", "What did I change on %s?", "What did I get done on %s?"}), e.day.Format("January 2"))
		if r.IntN(3) == 0 {
			q = fmt.Sprintf("What did I do on %s, %s?", e.day.Weekday(), e.day.Format("January 2"))
		}
		if err := add(CategoryDateAnchored, q, e.did, holding(e.did, e.at), nil); err != nil {
			return err
		}
	}
	// Event order: three pairs of events, asked in either order.
	pairs := [][2]int{}
	for i := range cls.events {
		for j := i + 1; j < len(cls.events); j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	for _, pr := range distinct(r, pairs, 3) {
		a, b := cls.events[pr[0]], cls.events[pr[1]]
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		first, then := a, b
		if b.day.Before(a.day) {
			first, then = b, a
		}
		// Most name the events in other words than they were told in.
		var q string
		switch r.IntN(4) {
		case 0:
			q = fmt.Sprintf("What did I do first, %s or %s?", a.base, b.base)
		case 1:
			q = fmt.Sprintf("Did %s happen before %s?", a.label, b.label)
		case 2:
			q = fmt.Sprintf("Which came first: %s or %s?", a.label, b.label)
		default:
			q = fmt.Sprintf("Was %s earlier than %s?", a.label, b.label)
		}
		answer := fmt.Sprintf("first %s (%s); then %s (%s)", first.did, first.day.Format("January 2"), then.did, then.day.Format("January 2"))
		ev := append(holding(a.did, a.at), holding(b.did, b.at)...)
		if err := add(CategoryEventOrder, q, answer, ev, nil); err != nil {
			return err
		}
	}
	// Two people, then two projects, at once.
	people := cls.people
	for i := 0; i+1 < len(people); i += 2 {
		a, b := people[i], people[i+1]
		q := fmt.Sprintf(pick(r, []string{"What are %s and %s each responsible for?", "Remind me what %s and %s handle.", "Who are %s and %s, and what do they do for us?"}), a.name, b.name)
		if err := add(CategoryMultiEntity, q, a.answer+"; "+b.answer, append(holding(a.answer, a.at), holding(b.answer, b.at)...), nil); err != nil {
			return err
		}
	}
	regs := cls.regions
	for i := 0; i+1 < len(regs); i++ {
		a, b := regs[i], regs[i+1]
		q := fmt.Sprintf(pick(r, []string{"Which regions are %s and %s deployed in?", "Where do %s and %s run?"}), a.name, b.name)
		if err := add(CategoryMultiEntity, q, a.answer+"; "+b.answer, append(holding(a.answer, a.at), holding(b.answer, b.at)...), nil); err != nil {
			return err
		}
	}
	return nil
}
