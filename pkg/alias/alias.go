// Package alias finds, by rules, the names a conversation gives to the
// things it talks about ("my dog Max", "our cat, Luna", "my sister Anna",
// "the ledger-api project") and the words that describe them, so that
// recall can expand a query with either side: "how is Max doing" also
// searches "dog", "what are her pets' names" also searches "Max".
//
// An alias is kept as a memory of its own (type entity, tag Tag, key
// alias/<name>/<word>): durable, idempotent by its deterministic id and
// erased with its subject like any memory. Its key carries what recall
// reads; its content says it in words.
package alias

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Tag marks alias memories. Recall leaves them out of its answers unless
// a request asks for the tag; it reads them to expand queries.
const Tag = "alias"

// KeyPrefix starts every alias memory's key.
const KeyPrefix = "alias/"

// Alias is one name and the word that describes it.
type Alias struct {
	Name  string // as written: "Max", "ledger-api"
	Word  string // the describing word, singular, lower case: "dog"
	Class string // the word's class: pet, family, friend, work, project
}

// classes maps each describing word to its class.
var classes = classWords()

// classTerms are extra words a class answers to in a query ("pets",
// "family", "kids").
var classTerms = map[string][]string{
	"pet":     {"pet", "animal"},
	"family":  {"family"},
	"friend":  {"friend"},
	"work":    {"colleague", "work"},
	"project": {"project"},
}

func classWords() map[string]string {
	classes := map[string]string{}
	for class, words := range map[string][]string{
		"pet": {"dog", "puppy", "pup", "cat", "kitten", "kitty", "hamster", "rabbit", "bunny", "bird", "parrot",
			"horse", "pony", "turtle", "tortoise", "fish", "goldfish", "snake", "lizard", "ferret", "gecko", "guinea pig", "pet"},
		"family": {"sister", "brother", "mom", "mother", "dad", "father", "son", "daughter", "wife", "husband",
			"kid", "child", "cousin", "aunt", "uncle", "grandma", "grandmother", "grandpa", "grandfather",
			"niece", "nephew", "baby", "partner", "fiance", "fiancee"},
		"friend":  {"friend", "buddy", "boyfriend", "girlfriend", "roommate", "neighbor", "neighbour"},
		"work":    {"boss", "manager", "colleague", "coworker", "teammate", "mentor", "client"},
		"project": {"project", "repo", "repository", "service", "app", "library"},
	} {
		for _, w := range words {
			classes[w] = class
		}
	}
	return classes
}

// ClassOf is the class of a describing word ("" when it is none).
func ClassOf(word string) string { return classes[word] }

// ClassTerms are the words a class answers to in a query.
func ClassTerms(class string) []string { return classTerms[class] }

const (
	possessive = `(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)`
	// adjectives that may stand between a possessive and its word
	adjectives = `(?:(?:little|big|older|younger|elder|baby|new|old|best|sweet|lovely|two|three)\s+)*`
	properName = `([A-Z][\p{L}'-]*[\p{L}])`
	// a project's name: a capitalised word, or one holding - _ . or a digit
	projectName = `([A-Z][\w.-]*\w|[a-z0-9][\w]*[-_.0-9][\w.-]*\w)`
)

var (
	personWords = wordsOf("pet", "family", "friend", "work")
	// "my dog Max", "our cat, Luna", "my dogs Max and Luna", "my sister named Anna"
	rePossessive = regexp.MustCompile(`\b` + possessive + `\s+` + adjectives + `(` + personWords + `)(?:s|es)?\s*,?\s+(?:(?:named|called)\s+)?` + properName + `(?:\s+and\s+` + properName + `)?`)
	// "a puppy named Oscar", "a cat called Bailey"
	reNamed = regexp.MustCompile(`\b(?:[Aa]n?|[Tt]he|[Mm]y|[Oo]ur|[Aa]nother|[Oo]ne|[Tt]wo)\s+` + adjectives + `(` + personWords + `)\s+(?:named|called)\s+` + properName)
	// "Anna, my sister", "Anna is my sister"
	reAppositive = regexp.MustCompile(properName + `(?:\s*,|\s+is)\s+` + possessive + `\s+` + adjectives + `(` + personWords + `)\b`)
	// "the ledger-api project", "project Phoenix"
	reProject     = regexp.MustCompile(`\bthe\s+` + projectName + `\s+(` + wordsOf("project") + `)\b`)
	reProjectName = regexp.MustCompile(`\b(project|repo)\s+` + projectName)
)

// wordsOf is an alternation of the describing words of the classes.
func wordsOf(cls ...string) string {
	var ws []string
	for w, c := range classes {
		for _, want := range cls {
			if c == want {
				ws = append(ws, regexp.QuoteMeta(w))
			}
		}
	}
	// longest first, so "grandmother" wins over "grandma"
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && (len(ws[j]) > len(ws[j-1]) || len(ws[j]) == len(ws[j-1]) && ws[j] < ws[j-1]); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
	return strings.Join(ws, "|")
}

// notNames are capitalised words that follow a describing word without
// naming anything ("my dog I love", "my sister And").
var notNames = map[string]bool{
	"i": true, "i'm": true, "i've": true, "i'd": true, "i'll": true, "the": true, "a": true, "an": true,
	"and": true, "but": true, "or": true, "so": true, "he": true, "she": true, "it": true, "they": true,
	"we": true, "you": true, "my": true, "our": true, "his": true, "her": true, "their": true,
	"this": true, "that": true, "these": true, "those": true, "when": true, "then": true, "what": true,
	"yesterday": true, "today": true, "tomorrow": true, "last": true, "next": true, "on": true, "in": true,
	"at": true, "for": true, "with": true, "from": true, "to": true, "of": true, "is": true, "was": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true,
	"thankfully": true, "luckily": true, "honestly": true, "actually": true, "sadly": true, "hopefully": true,
	"finally": true, "recently": true, "well": true, "also": true, "now": true, "plus": true, "anyway": true,
	"sunday": true, "oh": true, "yes": true, "no": true, "thanks": true, "wow": true, "hey": true,
}

// Find returns the aliases text states, each once.
func Find(text string) []Alias {
	var out []Alias
	seen := map[string]bool{}
	add := func(name, word string) {
		name = strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s")
		name = strings.Trim(name, `'-.`)
		word = strings.ToLower(word)
		if name == "" || notNames[strings.ToLower(name)] || classes[strings.ToLower(name)] != "" {
			return
		}
		class := classes[word]
		if class == "" {
			return
		}
		k := Key(Alias{Name: name, Word: word})
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, Alias{Name: name, Word: word, Class: class})
	}
	for _, m := range rePossessive.FindAllStringSubmatch(text, -1) {
		add(m[2], m[1])
		if m[3] != "" {
			add(m[3], m[1])
		}
	}
	for _, m := range reNamed.FindAllStringSubmatch(text, -1) {
		add(m[2], m[1])
	}
	for _, m := range reAppositive.FindAllStringSubmatch(text, -1) {
		add(m[1], m[2])
	}
	for _, m := range reProject.FindAllStringSubmatch(text, -1) {
		if !vagueProject[strings.ToLower(m[1])] {
			add(m[1], m[2])
		}
	}
	for _, m := range reProjectName.FindAllStringSubmatch(text, -1) {
		add(m[2], m[1])
	}
	return out
}

// vagueProject are words that stand before "project" without naming one.
var vagueProject = map[string]bool{"new": true, "old": true, "same": true, "other": true, "whole": true,
	"first": true, "last": true, "next": true, "main": true, "current": true, "side": true, "big": true}

// Key is the alias memory's key: alias/<name>/<word>.
func Key(a Alias) string {
	return KeyPrefix + memory.NormalizeKey(strings.ReplaceAll(a.Name, "/", "-")) + "/" + a.Word
}

// Parse reads an alias memory's key back; ok is false for other keys.
func Parse(key string) (a Alias, ok bool) {
	rest, found := strings.CutPrefix(key, KeyPrefix)
	if !found {
		return Alias{}, false
	}
	name, word, found := strings.Cut(rest, "/")
	word = strings.ReplaceAll(word, "-", " ")
	if !found || name == "" || classes[word] == "" {
		return Alias{}, false
	}
	return Alias{Name: name, Word: word, Class: classes[word]}, true
}

// Content says the alias in words, with whose it is when known:
// "Max: Melanie's dog (pet)".
func Content(a Alias, owner string) string {
	var b strings.Builder
	b.WriteString(a.Name)
	b.WriteString(": ")
	if owner = strings.TrimFunc(owner, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); owner != "" {
		b.WriteString(owner)
		b.WriteString("'s ")
	}
	b.WriteString(a.Word)
	if a.Class != a.Word {
		b.WriteString(" (")
		b.WriteString(a.Class)
		b.WriteString(")")
	}
	return b.String()
}

// Describes reports whether word (lower case, singular or plural) is a
// describing word or a class's word: what, besides a name, can touch an
// alias.
func Describes(word string) bool {
	for _, w := range []string{word, strings.TrimSuffix(word, "s"), strings.TrimSuffix(word, "es")} {
		if classes[w] != "" {
			return true
		}
		for _, ts := range classTerms {
			for _, t := range ts {
				if t == w {
					return true
				}
			}
		}
	}
	return word == "kids" || word == "children"
}
