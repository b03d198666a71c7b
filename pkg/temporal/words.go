package temporal

import (
	"strconv"
	"strings"
	"time"
)

// months maps month names and abbreviations to their month.
var months = map[string]time.Month{
	"january": time.January, "jan": time.January,
	"february": time.February, "feb": time.February,
	"march": time.March, "mar": time.March,
	"april": time.April, "apr": time.April,
	"may":  time.May,
	"june": time.June, "jun": time.June,
	"july": time.July, "jul": time.July,
	"august": time.August, "aug": time.August,
	"september": time.September, "sep": time.September, "sept": time.September,
	"october": time.October, "oct": time.October,
	"november": time.November, "nov": time.November,
	"december": time.December, "dec": time.December,
}

// ambiguousMonths are month names that are also ordinary words ("may",
// "march") or abbreviations: they name a month only with a day or year
// beside them, after a time preposition, or capitalised mid-sentence.
var ambiguousMonths = map[string]bool{
	"may": true, "march": true, "august": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday, "thursday": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

// season is a season of the northern hemisphere by its first month and
// length in months.
type season struct {
	first time.Month
	name  string
}

var seasons = map[string]season{
	"spring": {time.March, "spring"},
	"summer": {time.June, "summer"},
	"fall":   {time.September, "fall"}, "autumn": {time.September, "fall"},
	"winter": {time.December, "winter"},
}

// numberWords are small counts written out.
var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
	"thirty": 30, "fifty": 50, "hundred": 100, "several": 3, "few": 3, "couple": 2,
}

// ordinals are the ordinal words Ordinal reads.
var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
	"seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}

// Ordinal reads an ordinal, lowercase: a word from first to twelfth, or a
// number with its suffix ("4th", "21st"); ok is false for anything else,
// and for 0th.
func Ordinal(w string) (n int, ok bool) {
	if n, ok := ordinals[w]; ok {
		return n, true
	}
	digits := strings.TrimRight(w, "stndrh")
	if len(digits) == 0 || len(digits) == len(w) || len(w)-len(digits) != 2 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// ordinalWords number the weeks of a month: the ordinals up to the fifth,
// and 1st to 4th.
var ordinalWords = func() map[string]int {
	out := map[string]int{"1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
	for w, n := range ordinals {
		if n <= 5 {
			out[w] = n
		}
	}
	return out
}()

// unit is a length of calendar time.
type unit int

const (
	unitNone unit = iota
	unitDay
	unitWeek
	unitWeekend
	unitMonth
	unitYear
	unitDecade
)

var units = map[string]unit{
	"day": unitDay, "days": unitDay, "week": unitWeek, "weeks": unitWeek, "weekend": unitWeekend, "weekends": unitWeekend,
	"month": unitMonth, "months": unitMonth, "year": unitYear, "years": unitYear, "decade": unitDecade, "decades": unitDecade,
}

// timePrepositions before an ambiguous month name make it a month.
var timePrepositions = map[string]bool{
	"in": true, "during": true, "of": true, "since": true, "before": true, "after": true, "until": true, "till": true,
	"last": true, "this": true, "next": true, "early": true, "mid": true, "late": true, "through": true, "from": true,
	"to": true, "by": true, "between": true, "throughout": true, "around": true, "past": true, "previous": true,
}

// pastPhrases ask about an earlier state of things; multi-word ones are
// matched word by word.
var pastPhrases = [][]string{
	{"originally"}, {"initially"}, {"formerly"}, {"previously"}, {"used", "to"}, {"at", "first"}, {"at", "the", "time"},
	{"back", "then"}, {"in", "the", "past"}, {"first", "time"}, {"the", "first"}, {"before", "that"}, {"earlier"},
	{"former"}, {"no", "longer"}, {"anymore"}, {"any", "more"},
}

// pastAuxiliaries put a question in the past tense.
var pastAuxiliaries = map[string]bool{
	"did": true, "was": true, "were": true, "didn't": true, "wasn't": true, "weren't": true, "had": true, "hadn't": true,
}

// recentPhrases ask about the present state of things.
var recentPhrases = [][]string{
	{"recently"}, {"lately"}, {"these", "days"}, {"nowadays"}, {"currently"}, {"now"}, {"latest"}, {"most", "recent"},
	{"most", "recently"}, {"current"}, {"still"}, {"right", "now"}, {"at", "the", "moment"}, {"newest"},
}

// mentionWords name a time on their own ("yesterday", "ago").
var mentionWords = map[string]bool{
	"yesterday": true, "today": true, "tonight": true, "tomorrow": true, "ago": true, "recently": true, "lately": true,
	"weekend": true, "weekends": true, "week": true, "weeks": true, "month": true, "months": true, "year": true, "years": true,
	"decade": true, "decades": true, "morning": true, "evening": true, "afternoon": true, "summer": true, "winter": true,
	"spring": true, "autumn": true, "since": true, "birthday": true, "anniversary": true, "holiday": true, "holidays": true,
	"mondays": true, "tuesdays": true, "wednesdays": true, "thursdays": true, "fridays": true, "saturdays": true, "sundays": true,
	"christmas": true, "thanksgiving": true, "easter": true, "halloween": true,
}

// coreWords carry time on their own (with numbers and decades): every
// window expression has one. starters are the other words an expression
// can begin with ("the", "in", "before"); Parse tries the grammar at a core
// word, and at a starter only when a core word follows closely, which
// keeps it fast on ordinary prose.
var (
	coreWords = map[string]bool{}
	starters  = map[string]bool{}
)

// flagStarters are the first words of the phrases flags looks for.
var flagStarters = map[string]bool{"when": true, "since": true, "how": true, "what": true, "which": true, "before": true}

func init() {
	for w := range months {
		coreWords[w] = true
	}
	for w := range weekdays {
		coreWords[w] = true
	}
	for w := range seasons {
		coreWords[w] = true
	}
	for w := range numberWords {
		coreWords[w] = w != "a" && w != "an"
	}
	for w := range units {
		coreWords[w] = true
	}
	for w := range ordinalWords {
		coreWords[w] = true
	}
	for _, w := range []string{"last", "past", "previous", "this", "current", "next", "coming", "upcoming", "following",
		"early", "mid", "middle", "late", "beginning", "start", "end", "these", "nowadays", "yesterday", "today",
		"tonight", "tomorrow", "recently", "lately"} {
		coreWords[w] = true
	}
	for w := range timePrepositions {
		starters[w] = true
	}
	for _, w := range []string{"the", "a", "an", "prior", "up", "earlier", "later", "over", "within", "for", "on", "circa", "in"} {
		starters[w] = true
	}
	for _, set := range [][][]string{pastPhrases, recentPhrases} {
		for _, ph := range set {
			flagStarters[ph[0]] = true
		}
	}
}
