package samefact

import (
	"strings"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// Kind is the sort of a detail.
type Kind int

const (
	// Number: counts, amounts, percentages, money, versions, ordinals.
	Number Kind = iota + 1
	// Date: dates and their parts, years, weekdays, times of day,
	// relative days and frequencies.
	Date
	// Name: named entities and identifiers.
	Name
)

func (k Kind) String() string {
	switch k {
	case Number:
		return "number"
	case Date:
		return "date"
	case Name:
		return "name"
	}
	return "detail"
}

// Detail is one comparable detail of a text.
type Detail struct {
	Kind Kind
	// Value is the normalised form two details are compared by: "3" for
	// "three", "time 15:00" for "3 pm", "p79" for "P79".
	Value string
	// Text is the detail as written, for reasons.
	Text string
	// weak marks a capitalised word at the start of a sentence: it may be
	// a name or an ordinary word, so it can conflict with another name
	// but does not make a text richer on its own.
	weak bool
	// part marks one part of a multi-part date ("May" and "5" of "May
	// 5"), or a quoted string: compared, but their order is not (date
	// formats order parts differently, quotes are read ahead of the rest).
	part bool
}

type detailKey struct {
	kind  Kind
	value string
}

func (d Detail) key() detailKey { return detailKey{d.Kind, d.Value} }

// Details are what Extract reads from a text.
type Details struct {
	// Items in the order they appear.
	Items []Detail
	// Negation is the first negating word, "" when the text has none.
	Negation string

	words map[string]struct{} // lowercase words and lexical terms
	lower string              // the lowercased text, spaces collapsed
	has   map[detailKey]int   // how many times each detail is stated
	// terms are the text's lexical terms in order (each once), and
	// detailTerms those of the words read as details (but weak names) or
	// negation: the rest is the wording compared by wording.
	terms       []string
	detailTerms map[string]struct{}
	surface     map[string]string // a term's first word as written
	relations   []relation
}

// Extract reads the details of a text (see the package documentation).
func Extract(text string) Details {
	d := Details{lower: strings.Join(strings.Fields(strings.ToLower(text)), " ")}
	d.Items = quoted(text)
	d.detailTerms = make(map[string]struct{})
	for _, q := range d.Items {
		addTerms(d.detailTerms, q.Value)
	}
	s := scanner{fields: splitFields(text)}
	for s.i < len(s.fields) {
		n := 1
		if neg := negation(s.fields, s.i); neg != "" {
			if d.Negation == "" {
				d.Negation = neg
			}
			if neg == "no longer" {
				n = 2
			}
		} else if out, k := s.detail(); k > 0 {
			d.Items = append(d.Items, out...)
			if len(out) == 1 && out[0].weak {
				// Maybe an ordinary word: its wording is compared too.
				s.i += k
				continue
			}
			n = k
		} else {
			s.i++
			continue
		}
		for _, f := range s.fields[s.i : s.i+n] {
			addTerms(d.detailTerms, f.lower)
		}
		s.i += n
	}
	d.relations = relations(s.fields)
	d.words = make(map[string]struct{})
	for _, t := range lexical.Terms(text) {
		if _, ok := d.words[t]; !ok {
			d.terms = append(d.terms, t)
		}
		d.words[t] = struct{}{}
	}
	d.surface = make(map[string]string)
	for _, f := range s.fields {
		for _, t := range lexical.Terms(f.lower) {
			if _, ok := d.surface[t]; !ok {
				d.surface[t] = trimPossessive(f.lower)
			}
		}
		d.words[f.lower] = struct{}{}
		d.words[trimPossessive(f.lower)] = struct{}{}
		for _, w := range strings.FieldsFunc(f.lower, notAlnum) {
			d.words[w] = struct{}{}
		}
	}
	d.has = make(map[detailKey]int, len(d.Items))
	for _, it := range d.Items {
		d.has[it.key()]++
	}
	return d
}

// missingFrom returns the details of d that o lacks: o has no detail of
// the same kind and value and, for a name, o's text does not contain it
// at all (another casing, or a sentence-start word, is no difference). A
// number or date d states more often than o counts as missing for each
// time over: "service 0 is owned by team 0" holds a 0 that "service 231
// is owned by team 0" lacks, so neither statement restates the other.
func (d Details) missingFrom(o Details) []Detail {
	var out []Detail
	seen := make(map[detailKey]int)
	for _, it := range d.Items {
		k := it.key()
		seen[k]++
		if it.Kind == Name {
			if seen[k] > 1 {
				continue // a name said again names the same thing
			}
			if _, ok := o.has[k]; ok || o.contains(it.Value) {
				continue
			}
			out = append(out, it)
			continue
		}
		if seen[k] <= o.has[k] {
			continue
		}
		out = append(out, it)
	}
	return out
}

// contains reports whether the text holds the name value as a word (or
// its stem), or, for a value with spaces or punctuation (a path, a quoted
// string), as a substring.
func (d Details) contains(v string) bool {
	if _, ok := d.words[v]; ok {
		return true
	}
	if strings.IndexFunc(v, notAlnum) >= 0 {
		return strings.Contains(d.lower, v)
	}
	terms := lexical.Terms(v)
	for _, t := range terms {
		if _, ok := d.words[t]; !ok {
			return false
		}
	}
	return len(terms) > 0
}

// sequence is the details whose order counts: those appearing once, in
// their order, without parts (of multi-part dates, quoted strings).
func (d Details) sequence() []Detail {
	var out []Detail
	count := make(map[detailKey]int)
	for _, it := range d.Items {
		if !it.part {
			count[it.key()]++
		}
	}
	for _, it := range d.Items {
		if !it.part && count[it.key()] == 1 {
			out = append(out, it)
		}
	}
	return out
}

// scanner walks the fields of a text; a detail may span several fields
// ("3 pm", "May 5", "40 euros").
type scanner struct {
	fields []field
	i      int
}

// at returns the field at offset k from the current one, or a blank field.
func (s *scanner) at(k int) field {
	if j := s.i + k; j >= 0 && j < len(s.fields) {
		return s.fields[j]
	}
	return field{}
}

// detail reads the details starting at the current field and how many
// fields they span; 0 when the field is no detail.
func (s *scanner) detail() ([]Detail, int) {
	for _, read := range []func(*scanner) ([]Detail, int){
		(*scanner).web, (*scanner).date, (*scanner).number, (*scanner).identifier, (*scanner).capitalised,
	} {
		if out, n := read(s); n > 0 {
			return out, n
		}
	}
	return nil, 0
}

// addTerms adds the lexical terms of text to set.
func addTerms(set map[string]struct{}, text string) {
	for _, t := range lexical.Terms(text) {
		set[t] = struct{}{}
	}
}
