package filter

import (
	"bytes"
	"sync"
)

// indexFrom is the number of words above which a Source builds a map
// instead of scanning its words.
const indexFrom = 48

// Source is conversation text prepared once for grounding every fact
// extracted from it. It is read-only after NewSource and safe for
// concurrent use.
type Source struct {
	text  string  // cleaned
	words []sword // content words in order
	index map[string]polarity
	// hedged[i]: sentence i holds a negator or contrast word, so it may
	// support a negative fact ("use pnpm not npm" → "doesn't use npm").
	hedged []bool

	// The compact form is built on first use: most facts pass on their words.
	compactOnce sync.Once
	compact     *compactBuf
}

// sword is one content word of a source.
type sword struct {
	key  string
	sent int32 // the sentence it is in
	neg  bool  // this occurrence is negated
}

// polarity records how a word occurs in the source.
type polarity uint8

const (
	seenPositive polarity = 1 << iota
	seenNegated
)

// NewSource prepares text (cleaned like a fact) for grounding.
func NewSource(text string) *Source {
	text = clean(text).text
	toks := tokenize(text, make([]token, 0, len(text)/5+1))
	s := &Source{text: text, words: make([]sword, 0, len(toks))}
	var sent int32
	s.hedged = append(s.hedged, false)
	for i, t := range toks {
		if t.is(fSentence) && i > 0 {
			sent++
			s.hedged = append(s.hedged, false)
		}
		if t.is(fNeg | fContrast) {
			s.hedged[sent] = true
		}
		if !t.is(fStop) {
			s.words = append(s.words, sword{key: t.key, sent: sent, neg: t.is(fNegated)})
		}
	}
	if len(s.words) > indexFrom {
		s.index = make(map[string]polarity, len(s.words))
		for _, w := range s.words {
			s.index[w.key] |= w.polarity()
		}
	}
	return s
}

func (w sword) polarity() polarity {
	if w.neg {
		return seenNegated
	}
	return seenPositive
}

// Empty reports a source with no words to ground anything in.
func (s *Source) Empty() bool { return len(s.words) == 0 && s.text == "" }

// lookup reports how key occurs in the source (0: not at all).
func (s *Source) lookup(key string) polarity {
	if s.index != nil {
		return s.index[key]
	}
	var p polarity
	for _, w := range s.words {
		if w.key == key {
			p |= w.polarity()
		}
	}
	return p
}

// negatedWith reports whether a negated occurrence of key shares its
// sentence with one of the other words: "I don't like emojis" contradicts
// "likes emojis", but "I haven't read that yet" says nothing against
// "finished reading A Dance with Dragons".
func (s *Source) negatedWith(key string, others []string) bool {
	ws := s.words
	for i, w := range ws {
		if w.key != key || !w.neg {
			continue
		}
		for j := i - 1; j >= 0 && ws[j].sent == w.sent; j-- {
			if ws[j].key != key && contains(others, ws[j].key) {
				return true
			}
		}
		for j := i + 1; j < len(ws) && ws[j].sent == w.sent; j++ {
			if ws[j].key != key && contains(others, ws[j].key) {
				return true
			}
		}
	}
	return false
}

// assertsPlainly reports whether key occurs only positively and only in
// sentences without a negator or contrast: "I like tabs" cannot ground
// "User does not like tabs".
func (s *Source) assertsPlainly(key string) bool {
	seen := false
	for _, w := range s.words {
		if w.key != key {
			continue
		}
		if w.neg || s.hedged[w.sent] {
			return false
		}
		seen = true
	}
	return seen
}

// containsCompact reports whether text's compact form occurs in the source
// starting and ending on word boundaries, so "pen" does not match "open".
func (s *Source) containsCompact(text string) bool {
	c := compactOf(text).b
	if len(c) == 0 {
		return false
	}
	s.compactOnce.Do(func() { s.compact = compactOf(s.text) })
	sc := s.compact
	for from := 0; from+len(c) <= len(sc.b); {
		i := bytes.Index(sc.b[from:], c)
		if i < 0 {
			return false
		}
		i += from
		if sc.bounds[i]&boundStart != 0 && sc.bounds[i+len(c)]&boundEnd != 0 {
			return true
		}
		from = i + 1
	}
	return false
}
