package samefact

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	money    = regexp.MustCompile(`^([$€£¥])(\d[\d,]*(?:\.\d+)?)(k|m|bn)?$`)
	percent  = regexp.MustCompile(`^([+-]?\d[\d,]*(?:\.\d+)?)%$`)
	version  = regexp.MustCompile(`^(?:v(\d+(?:\.\d+)*(?:-[0-9a-z.]+)?)|(\d+\.\d+\.\d+(?:\.\d+)*(?:-[0-9a-z.]+)?))$`)
	ordinal  = regexp.MustCompile(`^(\d+)(?:st|nd|rd|th)$`)
	withUnit = regexp.MustCompile(`^(\d+(?:\.\d+)?)([a-z]+)$`)
	plain    = regexp.MustCompile(`^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$`)
)

var numberWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

var ordinalWords = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
	"ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
	"fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
}

// pronounOne: "one" after these words is a pronoun ("the one", "no one"),
// not a count.
var pronounOne = map[string]bool{"the": true, "no": true, "any": true, "some": true, "every": true, "each": true,
	"this": true, "that": true, "which": true, "another": true, "other": true, "only": true, "last": true,
	"next": true, "new": true, "old": true, "right": true, "wrong": true, "same": true, "a": true}

var currencies = map[string]string{"dollar": "$", "dollars": "$", "usd": "$", "euro": "€", "euros": "€", "eur": "€",
	"pound": "£", "pounds": "£", "gbp": "£", "yen": "¥", "jpy": "¥"}

// number reads a number: money, a percentage, a version, an ordinal, a
// number with its unit, or a plain number or number word, maybe followed by
// "percent" or a currency.
func (s *scanner) number() ([]Detail, int) {
	f := s.at(0)
	w := f.lower
	one := func(v string) ([]Detail, int) { return []Detail{{Kind: Number, Value: v, Text: f.raw}}, 1 }
	switch {
	case money.MatchString(w):
		m := money.FindStringSubmatch(w)
		return one(m[1] + plainNumber(m[2]) + m[3])
	case percent.MatchString(w):
		return one(plainNumber(percent.FindStringSubmatch(w)[1]) + "%")
	case version.MatchString(w):
		m := version.FindStringSubmatch(w)
		return one(m[1] + m[2])
	case ordinal.MatchString(w):
		return one("ordinal " + strings.TrimLeft(ordinal.FindStringSubmatch(w)[1], "0"))
	case ordinalWords[w] > 0:
		return one("ordinal " + strconv.Itoa(ordinalWords[w]))
	case withUnit.MatchString(w):
		m := withUnit.FindStringSubmatch(w)
		if _, ok := currencies[m[2]]; !ok {
			return one(plainNumber(m[1]) + m[2])
		}
	}
	v, ok := s.plainValue()
	if !ok {
		return nil, 0
	}
	next := s.at(1)
	switch {
	case next.lower == "percent" || next.lower == "pct" || next.lower == "per" && s.at(2).lower == "cent":
		n := 2
		if next.lower == "per" {
			n = 3
		}
		return []Detail{{Kind: Number, Value: v + "%", Text: f.raw + " " + next.raw}}, n
	case currencies[next.lower] != "":
		return []Detail{{Kind: Number, Value: currencies[next.lower] + v, Text: f.raw + " " + next.raw}}, 2
	}
	return one(v)
}

// plainValue reads the current field as a plain number or number word
// ("twenty-one" too), normalised.
func (s *scanner) plainValue() (string, bool) {
	w := s.at(0).lower
	if plain.MatchString(w) {
		return plainNumber(w), true
	}
	if n, ok := numberWords[w]; ok {
		if w == "one" && !s.countsOne() {
			return "", false
		}
		return strconv.Itoa(n), true
	}
	if tens, units, ok := strings.Cut(w, "-"); ok && numberWords[tens] >= 20 && numberWords[units] > 0 && numberWords[units] < 10 {
		return strconv.Itoa(numberWords[tens] + numberWords[units]), true
	}
	return "", false
}

// plainNumber drops thousands separators and a plus sign.
func plainNumber(w string) string {
	return strings.TrimPrefix(strings.ReplaceAll(w, ",", ""), "+")
}

// countsOne reports whether the current "one" is a count: followed in its
// sentence by a word that is not a function word ("one server"), and not
// after a determiner ("the one", "no one") nor a pronoun itself ("the blue
// one.", "one of them").
func (s *scanner) countsOne() bool {
	next := s.at(1)
	return !pronounOne[s.at(-1).lower] && next.raw != "" && !next.start && !isStopword(next.lower)
}
