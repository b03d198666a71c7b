package devchatgen

import "fmt"

// CategoryAlias asks about a pet or a relative by the word that describes
// it when the turn that answers names it only ("What did my dog chew?" —
// "Biscuit chewed through my charger"), by its name when the answer says
// only the word ("How is Biscuit doing?" — "the dog has been limping"),
// and for the names of a class ("What are my pets' names?"). Planted when
// Options.Aliases is set (the devchat-aliases set).
const CategoryAlias = "alias"

// aliasDef is something the user has with a name: how it is introduced
// (%s the name), a story told by its name alone and one told by its word
// alone, each with its question and the words of the answer.
type aliasDef struct {
	word, class string
	names       []string
	intros      []string
	byName      aliasStory // %s name in text
	byWord      aliasStory // %s name in question
}

type aliasStory struct{ text, question, answer string }

var aliasPets = []aliasDef{
	{"dog", "pet", []string{"Biscuit", "Rocket", "Juno", "Pixel"},
		[]string{"Sorry for the slow replies, my dog %s needed a long walk.", "Back now, had to feed our dog, %s, before the call."},
		aliasStory{"%s chewed through my laptop charger last night, so I'm on the old machine today.", "What did my dog destroy?", "laptop charger"},
		aliasStory{"The dog has been limping since the weekend hike; the vet sees him on Monday.", "How is %s doing?", "limping"}},
	{"cat", "pet", []string{"Pepper", "Mochi", "Tofu", "Nova"},
		[]string{"Ignore typos, my cat %s keeps walking over the keyboard.", "We adopted a cat named %s from the shelter this week."},
		aliasStory{"%s knocked a full mug of coffee over the spare monitor this morning.", "What did my cat break?", "coffee over the spare monitor"},
		aliasStory{"The cat finally sleeps through the night since we moved the feeder.", "Does %s sleep well now?", "sleeps through the night"}},
}

var aliasRelatives = []aliasDef{
	{"sister", "family", []string{"Marta", "Ingrid", "Leila", "Rosa"},
		[]string{"My sister %s is staying with us this week, so evenings are busy.", "I'll be offline Friday, my sister %s is getting married."},
		aliasStory{"%s got the offer from the architecture firm in Porto!", "What news did my sister get?", "architecture firm"},
		aliasStory{"My sister ran her first half marathon on Sunday, under two hours.", "What race did %s run?", "half marathon"}},
	{"brother", "family", []string{"Pavel", "Oskar", "Tariq", "Dario"},
		[]string{"My brother %s is visiting, he wants to see how a deploy works.", "Quick break, my brother %s just called about the move."},
		aliasStory{"%s finally bought the sailing boat he kept talking about.", "What did my brother buy?", "sailing boat"},
		aliasStory{"My brother broke his wrist skateboarding with his kids.", "How did %s get hurt?", "broke his wrist"}},
}

var aliasAcks = []string{"No worries, take your time.", "Ha, understood. Where were we?", "Oh no! Hope things calm down soon.", "Noted, thanks for telling me."}

// aliasFact is one planted alias and its three exchanges.
type aliasFact struct {
	def                  aliasDef
	name                 string
	intro, named, worded *planned
}

// planAliases plants two pets and a relative: each introduced with its
// name in an early session, then a story by its name alone and one by its
// word alone in later sessions.
func (g *convGen) planAliases() {
	r := g.r
	n := len(g.dates)
	var defs []aliasDef
	defs = append(defs, distinct(r, aliasPets, 2)...)
	defs = append(defs, pick(r, aliasRelatives))
	for _, d := range defs {
		name := pick(r, d.names)
		first := 1 + r.IntN(max(1, n/2))
		a := &aliasFact{def: d, name: name}
		a.intro = g.place(first, exchange{fmt.Sprintf(pick(r, d.intros), name), pick(r, aliasAcks)})
		a.named = g.place(first+1+r.IntN(n-first), exchange{fmt.Sprintf(d.byName.text, name), pick(r, aliasAcks)})
		a.worded = g.place(first+1+r.IntN(n-first), exchange{d.byWord.text, pick(r, aliasAcks)})
		g.aliases = append(g.aliases, a)
	}
}

// aliasQuestions asks about what planAliases planted.
func (g *convGen) aliasQuestions(holding func(string, ...*planned) []string, add func(cat, q, answer string, evidence, stale []string) error) error {
	var pets, petIntros []string
	var introAt []*planned
	for _, a := range g.aliases {
		d := a.def
		if err := add(CategoryAlias, d.byName.question, d.byName.answer, holding(a.name, a.named), nil); err != nil {
			return err
		}
		if err := add(CategoryAlias, fmt.Sprintf(d.byWord.question, a.name), d.byWord.answer, holding(d.byWord.answer, a.worded), nil); err != nil {
			return err
		}
		if d.class == "pet" {
			pets = append(pets, a.name)
			introAt = append(introAt, a.intro)
			petIntros = append(petIntros, holding(a.name, a.intro)...)
		}
	}
	if len(pets) > 1 {
		q := pick(g.r, []string{"What are the names of my pets?", "What are my pets called?"})
		if err := add(CategoryAlias, q, pets[0]+"; "+pets[1], petIntros, nil); err != nil {
			return err
		}
	}
	return nil
}
