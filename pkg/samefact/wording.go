package samefact

// wording returns the words (compared stemmed, stopwords aside) each text
// has and the other lacks, leaving out the words either read as a detail
// or a negation: those are compared as details, by value.
func wording(a, b Details) (onlyA, onlyB []string) {
	skip := func(t string) bool {
		_, inA := a.detailTerms[t]
		_, inB := b.detailTerms[t]
		return inA || inB
	}
	for _, t := range a.terms {
		if _, ok := b.words[t]; !ok && !skip(t) {
			onlyA = append(onlyA, a.written(t))
		}
	}
	for _, t := range b.terms {
		if _, ok := a.words[t]; !ok && !skip(t) {
			onlyB = append(onlyB, b.written(t))
		}
	}
	return onlyA, onlyB
}

// written is a term as the text wrote it ("coffee" for "coffe").
func (d Details) written(t string) string {
	if w, ok := d.surface[t]; ok {
		return w
	}
	return t
}

// relation is a marker ("over", "instead of", "than", "vs", "before",
// "after", "from … to") with the words on either side of it in its
// sentence: which side a word is on is the fact ("tabs over spaces" is
// not "spaces over tabs", though every word is the same).
type relation struct {
	marker      string
	left, right map[string]struct{} // terms
}

// markers relate the words before them to the words after.
var markers = map[string]bool{"over": true, "than": true, "vs": true, "versus": true, "before": true, "after": true}

// relations reads the relations of a text's fields.
func relations(fs []field) []relation {
	var out []relation
	for i, f := range fs {
		marker, from, to := f.lower, sentenceStart(fs, i), i+1
		switch {
		case marker == "instead" && i+1 < len(fs) && fs[i+1].lower == "of" && !fs[i+1].start:
			marker, to = "instead of", i+2
		case marker == "from":
			// "from x to y": x between "from" and "to", y after "to".
			j := i + 1
			for j < len(fs) && !fs[j].start && fs[j].lower != "to" {
				j++
			}
			if j == len(fs) || fs[j].start {
				continue
			}
			from, i, to = i+1, j, j+1
		case !markers[marker]:
			continue
		}
		r := relation{marker: marker, left: make(map[string]struct{}), right: make(map[string]struct{})}
		for _, g := range fs[from:i] {
			addTerms(r.left, g.lower)
		}
		for j := to; j < len(fs) && (j == to || !fs[j].start); j++ {
			addTerms(r.right, fs[j].lower)
		}
		out = append(out, r)
	}
	return out
}

// sentenceStart is the index of the first field of field i's sentence.
func sentenceStart(fs []field, i int) int {
	for i > 0 && !fs[i].start {
		i--
	}
	return i
}

// swapped finds a relation of a that b states the other way round: a word
// on its left is on the right of the same marker in b, and another on its
// right is on b's left. It returns the marker and the two words.
func swapped(a, b Details) (string, string, string, bool) {
	for _, ra := range a.relations {
		for _, rb := range b.relations {
			if ra.marker != rb.marker {
				continue
			}
			x, okX := common(ra.left, rb.right)
			y, okY := common(ra.right, rb.left)
			if okX && okY {
				return ra.marker, a.written(x), a.written(y), true
			}
		}
	}
	return "", "", "", false
}

// common returns a term in both sets, the least for a stable reason.
func common(p, q map[string]struct{}) (string, bool) {
	var out string
	for t := range p {
		if _, ok := q[t]; ok && (out == "" || t < out) {
			out = t
		}
	}
	return out, out != ""
}
