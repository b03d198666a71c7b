package lexical

// stem reduces a lowercase English word (ASCII letters and apostrophes) to
// its Porter2 stem, the Snowball English stemmer, so that "committing",
// "commits" and "committed" meet at "commit". It works on bytes with one
// allocation: github.com/kljensen/snowball gives the same stems (the tests
// hold it as the reference) but is twenty times slower, which would make
// indexing at open take seconds per 100k memories.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	if s, ok := specialStems[w]; ok {
		return s
	}
	b := []byte(w)
	for len(b) > 0 && b[0] == '\'' {
		b = b[1:]
	}
	for i, c := range b {
		if c == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y' // a consonant y
		}
	}
	s := stemmer{b: b}
	s.regions()
	s.step0()
	s.step1a()
	s.step1b()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	for i, c := range s.b {
		if c == 'Y' {
			s.b[i] = 'y'
		}
	}
	if string(s.b) == w {
		return w
	}
	return string(s.b)
}

// stemmer is a word being stemmed and the starts of its regions R1 and R2,
// never beyond its end.
type stemmer struct {
	b      []byte
	r1, r2 int
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions sets R1 (after the first non-vowel that follows a vowel, or after
// one of three exceptional prefixes) and R2 (the same, within R1).
func (s *stemmer) regions() {
	s.r1 = -1
	for _, p := range []string{"gener", "commun", "arsen"} {
		if len(s.b) >= len(p) && string(s.b[:len(p)]) == p {
			s.r1 = len(p)
		}
	}
	if s.r1 < 0 {
		s.r1 = s.afterVowelConsonant(0)
	}
	s.r2 = s.afterVowelConsonant(s.r1)
}

func (s *stemmer) afterVowelConsonant(start int) int {
	for j := start + 1; j < len(s.b); j++ {
		if isVowel(s.b[j-1]) && !isVowel(s.b[j]) {
			return j + 1
		}
	}
	return len(s.b)
}

// suffixTable holds a step's suffixes by last byte, in the step's order of
// preference (longest first where one ends another).
type suffixTable [256][]string

func suffixesOf(suffixes ...string) *suffixTable {
	var t suffixTable
	for _, suf := range suffixes {
		last := suf[len(suf)-1]
		t[last] = append(t[last], suf)
	}
	return &t
}

// suffix returns the first suffix of t the word ends with, or "".
func (s *stemmer) suffix(t *suffixTable) string {
	n := len(s.b)
	if n == 0 {
		return ""
	}
	for _, c := range t[s.b[n-1]] {
		if len(c) <= n && string(s.b[n-len(c):]) == c {
			return c
		}
	}
	return ""
}

// inR1 and inR2 report whether a suffix of n bytes lies in the region.
func (s *stemmer) inR1(n int) bool { return len(s.b)-n >= s.r1 }
func (s *stemmer) inR2(n int) bool { return len(s.b)-n >= s.r2 }

// replace swaps the last n bytes for repl, keeping the regions within the
// word.
func (s *stemmer) replace(n int, repl string) {
	s.b = append(s.b[:len(s.b)-n], repl...)
	s.r1 = min(s.r1, len(s.b))
	s.r2 = min(s.r2, len(s.b))
}

// endsShortSyllable reports whether b[:i] ends in a short syllable.
func (s *stemmer) endsShortSyllable(i int) bool {
	b := s.b
	switch {
	case i == 2:
		return isVowel(b[0]) && !isVowel(b[1])
	case i >= 3:
		c := b[i-1]
		return !isVowel(c) && c != 'w' && c != 'x' && c != 'Y' && isVowel(b[i-2]) && !isVowel(b[i-3])
	}
	return false
}

func (s *stemmer) isShortWord() bool {
	return s.r1 >= len(s.b) && s.endsShortSyllable(len(s.b))
}

func (s *stemmer) step0() {
	if suf := s.suffix(step0Suffixes); suf != "" {
		s.replace(len(suf), "")
	}
}

func (s *stemmer) step1a() {
	switch suf := s.suffix(step1aSuffixes); suf {
	case "sses":
		s.replace(4, "ss")
	case "ied", "ies":
		if len(s.b) > 4 {
			s.replace(3, "i")
		} else {
			s.replace(3, "ie")
		}
	case "s":
		// Only when a vowel comes before the letter preceding the s.
		for i := 0; i < len(s.b)-2; i++ {
			if isVowel(s.b[i]) {
				s.replace(1, "")
				return
			}
		}
	}
}

func (s *stemmer) step1b() {
	suf := s.suffix(step1bSuffixes)
	switch suf {
	case "":
		return
	case "eed", "eedly":
		if s.inR1(len(suf)) {
			s.replace(len(suf), "ee")
		}
		return
	}
	stemVowel := false
	for _, c := range s.b[:len(s.b)-len(suf)] {
		if isVowel(c) {
			stemVowel = true
			break
		}
	}
	if !stemVowel {
		return
	}
	r1, r2 := s.r1, s.r2
	s.replace(len(suf), "")
	switch end := s.suffix(step1bEndings); end {
	case "":
		if s.isShortWord() {
			s.b = append(s.b, 'e')
			s.r1, s.r2 = len(s.b), len(s.b)
			return
		}
	case "at", "bl", "iz":
		s.b = append(s.b, 'e')
	default:
		s.replace(1, "")
	}
	s.r1, s.r2 = min(r1, len(s.b)), min(r2, len(s.b))
}

func (s *stemmer) step1c() {
	n := len(s.b)
	if n > 2 && (s.b[n-1] == 'y' || s.b[n-1] == 'Y') && !isVowel(s.b[n-2]) {
		s.b[n-1] = 'i'
	}
}

func (s *stemmer) step2() {
	suf := s.suffix(step2Suffixes)
	if suf == "" || !s.inR1(len(suf)) {
		return
	}
	n := len(s.b)
	switch suf {
	case "li":
		if n >= 3 {
			switch s.b[n-3] {
			case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
				s.replace(2, "")
			}
		}
		return
	case "ogi":
		if n >= 4 && s.b[n-4] == 'l' {
			s.replace(3, "og")
		}
		return
	}
	s.replace(len(suf), step2Replacements[suf])
}

func (s *stemmer) step3() {
	suf := s.suffix(step3Suffixes)
	if suf == "" || !s.inR1(len(suf)) {
		return
	}
	if suf == "ative" {
		if s.inR2(5) {
			s.replace(5, "")
		}
		return
	}
	s.replace(len(suf), step3Replacements[suf])
}

func (s *stemmer) step4() {
	suf := s.suffix(step4Suffixes)
	if suf == "" || !s.inR2(len(suf)) {
		return
	}
	if suf == "ion" {
		if n := len(s.b); n >= 4 && (s.b[n-4] == 's' || s.b[n-4] == 't') {
			s.replace(3, "")
		}
		return
	}
	s.replace(len(suf), "")
}

func (s *stemmer) step5() {
	last := len(s.b) - 1
	if last < 0 || s.r1 > last {
		return
	}
	switch {
	case s.b[last] == 'e':
		if s.r2 <= last || !s.endsShortSyllable(last) {
			s.replace(1, "")
		}
	case s.b[last] == 'l' && s.r2 <= last && last >= 1 && s.b[last-1] == 'l':
		s.replace(1, "")
	}
}

// The suffixes each step looks for, longest first.
var (
	step0Suffixes  = suffixesOf("'s'", "'s", "'")
	step1aSuffixes = suffixesOf("sses", "ied", "ies", "us", "ss", "s")
	step1bSuffixes = suffixesOf("eedly", "ingly", "edly", "ing", "eed", "ed")
	step1bEndings  = suffixesOf("at", "bl", "iz", "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
	step2Suffixes  = suffixesOf("ational", "fulness", "iveness", "ization", "ousness",
		"biliti", "lessli", "tional", "alism", "aliti", "ation",
		"entli", "fulli", "iviti", "ousli", "anci", "abli",
		"alli", "ator", "enci", "izer", "bli", "ogi", "li")
	step3Suffixes = suffixesOf("ational", "tional", "alize", "icate", "ative", "iciti", "ical", "ful", "ness")
	step4Suffixes = suffixesOf("ement", "ance", "ence", "able", "ible", "ment",
		"ent", "ant", "ism", "ate", "iti", "ous", "ive",
		"ize", "ion", "al", "er", "ic")
)

var step2Replacements = map[string]string{
	"tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
	"izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
	"alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous",
	"ousness": "ous", "iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble",
	"fulli": "ful", "lessli": "less",
}

var step3Replacements = map[string]string{
	"ational": "ate", "tional": "tion", "alize": "al", "icate": "ic", "iciti": "ic",
	"ical": "ic", "ful": "", "ness": "",
}

// specialStems are the algorithm's exceptional forms, stemmed as a whole.
var specialStems = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
	"singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
	"cosmos": "cosmos", "bias": "bias", "andes": "andes",
	"inning": "inning", "innings": "inning", "outing": "outing", "outings": "outing",
	"canning": "canning", "cannings": "canning", "herring": "herring", "herrings": "herring",
	"earring": "earring", "earrings": "earring",
	"proceed": "proceed", "proceeds": "proceed", "proceeded": "proceed", "proceeding": "proceed",
	"exceed": "exceed", "exceeds": "exceed", "exceeded": "exceed", "exceeding": "exceed",
	"succeed": "succeed", "succeeds": "succeed", "succeeded": "succeed", "succeeding": "succeed",
}
