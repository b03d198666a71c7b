package filter

import (
	"fmt"
	"strings"
)

// evidenceOverlap is the share of an evidence's words the source must hold
// when the evidence is not a verbatim part of it.
const evidenceOverlap = 0.8

// verdict is the outcome of grounding a fact.
type verdict struct {
	reason Reason // "" when grounded
	detail string
	score  float64 // 1 for a verbatim match, else the share of content words found
}

// fact is a fact's content tokenised for grounding.
type fact struct {
	text     string
	toks     []token
	words    int  // content (non-stop) tokens
	contrast bool // has a negator or contrast word
}

func newFact(content string) fact {
	toks := tokenize(content, make([]token, 0, 16))
	fc := fact{text: content, toks: toks}
	for _, t := range toks {
		if !t.is(fStop) {
			fc.words++
		}
		if t.is(fNeg | fContrast) {
			fc.contrast = true
		}
	}
	return fc
}

// ground decides whether the fact says what the source says. A fact passes
// when its numbers and names all occur in the source and enough of its
// words do (all of them for a short fact, MinOverlap of them otherwise), or
// when it is a verbatim (compact, word-aligned) part of the source. Then
// the source must not negate what the fact asserts.
func (f *Filter) ground(src *Source, fc fact) verdict {
	// The overlap is cheap with the source's index; the compact scan reads
	// the whole source, so it only rescues what the overlap refuses.
	v := f.overlap(src, fc)
	if v.reason != "" {
		if !src.containsCompact(fc.text) {
			return v
		}
		v = verdict{score: 1}
	}
	if !fc.contrast {
		// A positive fact: the source must not deny it.
		for _, t := range fc.toks {
			if t.is(fStop|fNegated) || src.lookup(t.key) != seenNegated || !src.negatedWith(t.key, fc.keys()) {
				continue
			}
			return verdict{reason: ReasonNegated, detail: fmt.Sprintf("the source negates %q", t.raw)}
		}
	} else {
		// A negative fact: the source must not plainly assert what it denies.
		for _, t := range fc.toks {
			if t.is(fNegated) && !t.is(fStop) && src.assertsPlainly(t.key) {
				return verdict{reason: ReasonNegated, detail: fmt.Sprintf("the source asserts %q", t.raw)}
			}
		}
	}
	return v
}

// keys are the fact's content words.
func (fc fact) keys() []string {
	out := make([]string, 0, fc.words)
	for _, t := range fc.toks {
		if !t.is(fStop) {
			out = append(out, t.key)
		}
	}
	return out
}

func (f *Filter) overlap(src *Source, fc fact) verdict {
	entities := !titleCase(fc.toks)
	found, total := 0, 0
	for i, t := range fc.toks {
		if t.is(fStop) || seenBefore(fc.toks[:i], t.key) {
			continue
		}
		total++
		if src.lookup(t.key) != 0 {
			found++
			continue
		}
		switch {
		case t.is(fNum):
			return verdict{reason: ReasonUngrounded, detail: fmt.Sprintf("number %s is not in the source", t.raw)}
		case entities && isEntity(t):
			return verdict{reason: ReasonUngrounded, detail: fmt.Sprintf("name %q is not in the source", t.raw)}
		}
	}
	score := float64(found) / float64(max(total, 1))
	switch {
	case total == 0:
		return verdict{reason: ReasonUngrounded, detail: "no content words"}
	case total <= f.cfg.ShortFactWords && found < total:
		return verdict{reason: ReasonUngrounded, score: score,
			detail: fmt.Sprintf("short fact: %d of %d words in the source", found, total)}
	case score < f.cfg.MinOverlap:
		return verdict{reason: ReasonUngrounded, score: score,
			detail: fmt.Sprintf("%d of %d words in the source (%.2f < %.2f)", found, total, score, f.cfg.MinOverlap)}
	}
	return verdict{score: score}
}

func seenBefore(toks []token, key string) bool {
	for _, t := range toks {
		if t.key == key && !t.is(fStop) {
			return true
		}
	}
	return false
}

// isEntity: a capitalised word inside a sentence ("Chrome", "API",
// "iPhone"), or one with inner capitals anywhere: a name the fact must not
// invent.
func isEntity(t token) bool {
	return t.is(fInnerUpper) || t.is(fUpper) && !t.is(fSentence)
}

// titleCase reports Title Case text, where capitals say nothing about names.
func titleCase(toks []token) bool {
	words, upper := 0, 0
	for _, t := range toks {
		if t.is(fNum) {
			continue
		}
		words++
		if t.is(fUpper) {
			upper++
		}
	}
	return words >= 4 && upper*10 >= words*6
}

// evidenceGrounded keeps evidence that is a verbatim part of the source, or
// nearly so: all its numbers and evidenceOverlap of its words occur there.
func evidenceGrounded(src *Source, ev string) bool {
	if strings.Contains(src.text, ev) {
		return true
	}
	fc := newFact(ev)
	if src.containsCompact(fc.text) {
		return true
	}
	found, total := 0, 0
	for _, t := range fc.toks {
		if t.is(fStop) {
			continue
		}
		total++
		if src.lookup(t.key) != 0 {
			found++
		} else if t.is(fNum) {
			return false
		}
	}
	return total > 0 && float64(found) >= evidenceOverlap*float64(total)
}
