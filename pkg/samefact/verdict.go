package samefact

import (
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Verdict is what a new fact is to an older memory it resembles.
type Verdict int

const (
	// Same: no detail or word differs and the new fact adds none the old
	// memory lacks (the old may hold more). Folding the new fact into the
	// old one (a reinforcement) loses nothing.
	Same Verdict = iota
	// Richer: nothing conflicts, but the new fact carries a detail or a
	// word the old memory lacks ("with the Solarized theme", "strongly"),
	// or details of different sorts on both sides ("at 14pt" against
	// "since 2024"). Not a blind fold; a merge that keeps every detail of
	// both (the LLM insert-merge) may combine them.
	Richer
	// Reworded: no detail differs, but each text has words the other
	// lacks: synonyms ("prefers", "likes") or another thing ("tea",
	// "coffee"; "TypeScript", "JavaScript" written in lowercase). Words
	// alone cannot tell which, so not a blind fold; an LLM may judge and
	// merge.
	Reworded
	// Conflict: a detail of the same sort differs (a number, a date, a
	// name), details or words come in the other order ("from Vim to
	// Helix", "spaces over tabs"), or one side is negated: either an
	// update of the old fact or another fact about something else. Never folded nor
	// merged; the new fact is stored as its own memory and the
	// consolidator's reconcile decides whether it supersedes the old one.
	Conflict
	// Different: the two are about different things by their metadata
	// (different keys, subjects or namespaces), whatever their wording.
	// Never folded nor merged.
	Different
)

func (v Verdict) String() string {
	switch v {
	case Same:
		return "same"
	case Richer:
		return "richer"
	case Reworded:
		return "reworded"
	case Conflict:
		return "conflict"
	case Different:
		return "different"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Result is a verdict with the reason for it, naming the detail that made
// the difference ("number 48 vs 12", "negation: \"not\" only in new", "key
// editor vs shell"); empty for a Same pair with nothing to say.
type Result struct {
	Verdict Verdict
	Reason  string
}

// Folds reports whether the new fact may be folded into the old memory
// without an LLM.
func (r Result) Folds() bool { return r.Verdict == Same }

// Mergeable reports whether a merge that keeps every detail of both (the
// LLM insert-merge) may combine the two.
func (r Result) Mergeable() bool {
	return r.Verdict == Same || r.Verdict == Richer || r.Verdict == Reworded
}

// Compare judges the new fact against the older memory old: first their
// namespace, subject and normalised key (both set and different: Different;
// a key only the new fact has makes an otherwise Same pair Richer), then
// their contents by CompareText.
func Compare(old, new memory.Memory) Result {
	switch {
	case old.Namespace != new.Namespace:
		return Result{Different, fmt.Sprintf("namespace %s vs %s", old.Namespace, new.Namespace)}
	case old.Subject != new.Subject:
		return Result{Different, fmt.Sprintf("subject %s vs %s", old.Subject, new.Subject)}
	}
	ko, kn := memory.NormalizeKey(old.Key), memory.NormalizeKey(new.Key)
	if ko != "" && kn != "" && ko != kn {
		return Result{Different, fmt.Sprintf("key %s vs %s", ko, kn)}
	}
	r := CompareText(old.Content, new.Content)
	if r.Verdict == Same && ko == "" && kn != "" {
		return Result{Richer, "key " + kn + " only in new"}
	}
	return r
}

// CompareText judges the statement new against the older statement old by
// their details (see Extract) and then their wording:
//
//   - one negated and the other not: Conflict;
//   - a detail of one sort (number, date, name) in each that the other
//     lacks: Conflict, naming the first pair;
//   - the details both share in a different order ("from Vim to Helix"
//     against "from Helix to Vim"), or a relation the other way round
//     ("tabs over spaces" against "spaces over tabs"): Conflict;
//   - a detail in new that old lacks: Richer;
//   - words in each that the other lacks (details and stopwords aside):
//     Reworded;
//   - a word in new that old lacks: Richer;
//   - otherwise Same.
//
// A name counts as lacking only when the other text does not contain the
// word at all, so capitalisation ("Postgres", "postgres") or a capitalised
// word at the start of a sentence is no difference.
func CompareText(old, new string) Result {
	return compare(Extract(old), Extract(new), true)
}

// CompareDetails is CompareText without the wording: whether new's details
// are all in old and none conflicts, however either is worded. It checks
// that a rewritten statement (an LLM merge) kept the details of what it
// rewrote.
func CompareDetails(old, new string) Result {
	return compare(Extract(old), Extract(new), false)
}

func compare(a, b Details, words bool) Result {
	switch {
	case a.Negation == "" && b.Negation != "":
		return Result{Conflict, fmt.Sprintf("negation: %q only in new", b.Negation)}
	case a.Negation != "" && b.Negation == "":
		return Result{Conflict, fmt.Sprintf("negation: %q only in old", a.Negation)}
	}
	onlyA, onlyB := a.missingFrom(b), b.missingFrom(a)
	for _, k := range []Kind{Number, Date, Name} {
		x, okA := first(onlyA, k, true)
		y, okB := first(onlyB, k, true)
		if okA && okB {
			return Result{Conflict, fmt.Sprintf("%s %s vs %s", k, x.Text, y.Text)}
		}
	}
	if x, y, ok := reordered(a, b); ok {
		return Result{Conflict, fmt.Sprintf("order of %s and %s", x.Text, y.Text)}
	}
	if marker, x, y, ok := swapped(a, b); ok {
		return Result{Conflict, fmt.Sprintf("order: %s and %s change sides of %q", x, y, marker)}
	}
	for _, k := range []Kind{Number, Date, Name} {
		if y, ok := first(onlyB, k, false); ok {
			return Result{Richer, fmt.Sprintf("new adds %s %s", k, y.Text)}
		}
	}
	var wordsA, wordsB []string
	if words {
		wordsA, wordsB = wording(a, b)
	}
	switch {
	case len(wordsA) > 0 && len(wordsB) > 0:
		return Result{Reworded, fmt.Sprintf("wording: %s vs %s", strings.Join(wordsA, " "), strings.Join(wordsB, " "))}
	case len(wordsB) > 0:
		return Result{Richer, "new adds " + strings.Join(wordsB, " ")}
	}
	for _, k := range []Kind{Number, Date, Name} {
		if x, ok := first(onlyA, k, false); ok {
			return Result{Same, fmt.Sprintf("old also has %s %s", k, x.Text)}
		}
	}
	if len(wordsA) > 0 {
		return Result{Same, "old also has " + strings.Join(wordsA, " ")}
	}
	return Result{Same, ""}
}

// first returns the first detail of kind k in ds; weak ones only when
// weak is set.
func first(ds []Detail, k Kind, weak bool) (Detail, bool) {
	for _, d := range ds {
		if d.Kind == k && (weak || !d.weak) {
			return d, true
		}
	}
	return Detail{}, false
}

// reordered finds two details both texts hold, each once and in its own
// place (not part of a multi-part date), that come in the opposite order.
func reordered(a, b Details) (Detail, Detail, bool) {
	sa, sb := a.sequence(), b.sequence()
	posB := make(map[detailKey]int, len(sb))
	for i, d := range sb {
		posB[d.key()] = i
	}
	var common []Detail
	for _, d := range sa {
		if _, ok := posB[d.key()]; ok {
			common = append(common, d)
		}
	}
	for i := 1; i < len(common); i++ {
		if posB[common[i].key()] < posB[common[i-1].key()] {
			return common[i-1], common[i], true
		}
	}
	return Detail{}, Detail{}, false
}
