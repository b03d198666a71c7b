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

func newVocab(s *space) *vocab {
	raw := make([][]string, s.n())
	seen := map[string]bool{}
	for i, it := range s.items {
		raw[i] = words(it.Text)
		for _, w := range raw[i] {
			seen[w] = true
		}
	}
	v := &vocab{docs: make([][]int32, s.n()), uniq: make([][]int32, s.n())}
	index := map[string]int32{}
	for i, ws := range raw {
		doc := make([]int32, len(ws))
		for j, w := range ws {
			w = singular(w, seen)
			id, ok := index[w]
			if !ok {
				id = int32(len(v.terms))
				index[w] = id
				v.terms = append(v.terms, w)
				v.df = append(v.df, 0)
			}
			doc[j] = id
		}
		v.docs[i] = doc
		u := slices.Compact(slices.Sorted(slices.Values(doc)))
		v.uniq[i] = u
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
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if utf8.RuneCountInString(f) < 2 || stopwords[f] || allDigits(f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
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
