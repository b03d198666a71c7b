package topics

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// vocab is the tenant's memories as sequences of content words, with the
// number of memories each word appears in.
type vocab struct {
	terms []string
	df    []int
	docs  [][]int32 // per memory: its words in text order
	uniq  [][]int32 // per memory: its distinct words, ascending
	count []int32   // scratch counter per word, zero between uses
}

// newVocab reads each text once, interning its words as it goes (a text's
// words are never all held as strings), then folds plurals onto their
// singulars.
func newVocab(s *space) *vocab {
	v := &vocab{docs: make([][]int32, s.n()), uniq: make([][]int32, s.n())}
	index := map[string]int32{} // word as written (lowercase) → raw id
	var raw []string
	var buf []byte
	var doc, scratch []int32
	for i, it := range s.items {
		doc = doc[:0]
		eachWord(it.Text, &buf, func(w []byte) {
			id, ok := index[string(w)]
			if !ok {
				id = int32(len(raw))
				raw = append(raw, string(w))
				index[raw[id]] = id
			}
			doc = append(doc, id)
		})
		v.docs[i] = slices.Clone(doc)
	}
	seen := make(map[string]bool, len(raw))
	for _, w := range raw {
		seen[w] = true
	}
	fold := make([]int32, len(raw)) // raw id → term id
	terms := map[string]int32{}
	for r, w := range raw {
		w = singular(w, seen)
		id, ok := terms[w]
		if !ok {
			id = int32(len(v.terms))
			terms[w] = id
			v.terms = append(v.terms, w)
		}
		fold[r] = id
	}
	v.df = make([]int, len(v.terms))
	for i, doc := range v.docs {
		for j, r := range doc {
			doc[j] = fold[r]
		}
		u := append(scratch[:0], doc...)
		slices.Sort(u)
		u = slices.Compact(u)
		v.uniq[i] = slices.Clone(u)
		scratch = u
		for _, id := range u {
			v.df[id]++
		}
	}
	v.count = make([]int32, len(v.terms))
	return v
}

// words splits text into lowercase content words: runs of letters and
// digits, at least two characters, not only digits, not stopwords.
func words(text string) []string {
	var out []string
	var buf []byte
	eachWord(text, &buf, func(w []byte) { out = append(out, string(w)) })
	return out
}

// eachWord calls fn with each content word of text (see words), lowercase,
// in a buffer that fn must not keep. It lowers rune by rune, which splits
// and lowers as strings.ToLower followed by strings.FieldsFunc would,
// without copying the text.
func eachWord(text string, buf *[]byte, fn func(w []byte)) {
	w := (*buf)[:0]
	runes, digits := 0, true
	flush := func() {
		if runes >= 2 && !digits && !stopwords[string(w)] {
			fn(w)
		}
		w, runes, digits = w[:0], 0, true
	}
	for _, r := range text {
		r = unicode.ToLower(r)
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		w = utf8.AppendRune(w, r)
		runes++
		digits = digits && unicode.IsDigit(r)
	}
	flush()
	*buf = w
}

// singular folds a plural onto its singular when the singular also occurs,
// so "containers" and "container" count as one word.
func singular(w string, seen map[string]bool) string {
	if len(w) <= 3 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") {
		return w
	}
	if base, ok := strings.CutSuffix(w, "ies"); ok && seen[base+"y"] {
		return base + "y"
	}
	if base, ok := strings.CutSuffix(w, "es"); ok && seen[base] {
		return base
	}
	if base := w[:len(w)-1]; seen[base] {
		return base
	}
	return w
}
