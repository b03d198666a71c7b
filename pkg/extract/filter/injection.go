package filter

import (
	"regexp"
	"strings"
)

// maxHidden is how many invisible smuggling characters (tag characters,
// variation selectors) a text may carry: one emoji flag sequence uses a
// few; hidden text uses one per letter.
const maxHidden = 4

// injections finds text that instructs the model about itself: its rules,
// identity or prompt (Nebo's and Clanker's patterns, widened and made
// precise). Instructions about the user's work ("always run make test
// before committing", "never push to main", "from now on, use pnpm") are
// what memory is for and pass.
type injections struct {
	phrases  []phrase
	triggers *triggerIndex
	markup   *markup
	dan      *regexp.Regexp
}

// danRE finds the "DAN" persona by its capitals ("you are DAN", "DAN
// mode"); "Dan", a name, passes.
const danRE = `\b(?:as|are|be|become|enable|activate|called|named|now)\s+DAN\b|\bDAN\s+(?:mode|prompt|jailbreak)\b|(?:^|\n)\s*DAN\s*:`

func newInjections() *injections {
	ps := newPhrases()
	return &injections{phrases: ps, triggers: newTriggerIndex(ps, secretWords), markup: newMarkup(),
		dan: regexp.MustCompile(danRE)}
}

// find names the injection in a probed text, or returns "".
func (in *injections) find(p *probe) string {
	if name := in.phrase(p.s); name != "" {
		return name
	}
	if p.s.spaced { // "i g n o r e previous instructions"
		if name := in.phrase(newStream(despace(p.s.text), in.triggers)); name != "" {
			return name
		}
	}
	if name := in.markup.find(p); name != "" {
		return name
	}
	if containsDAN(p.text) && in.dan.MatchString(p.text) {
		return "jailbreak"
	}
	if p.b64Run >= 24 {
		for _, decoded := range encodedPayloads(p.text) {
			d := clean(decoded).text
			if dp := newProbe(d, decoded, in.triggers); in.find(&dp) != "" {
				return "encoded instructions"
			}
		}
	}
	return ""
}

// despace joins runs of four or more one-letter words in a stream, which
// is how spaced-out words ("i g n o r e") dodge the phrases.
func despace(s string) string {
	words := strings.Fields(s)
	var b strings.Builder
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && len(words[j]) == 1 && words[j][0] >= 'a' && words[j][0] <= 'z' {
			j++
		}
		switch {
		case j-i >= 4:
			b.WriteString(strings.Join(words[i:j], ""))
		case j == i:
			j++
			fallthrough
		default:
			b.WriteString(strings.Join(words[i:j], " "))
		}
		b.WriteByte(' ')
		i = j
	}
	return b.String()
}

func containsDAN(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if s[i] == 'D' && s[i+1] == 'A' && s[i+2] == 'N' {
			return true
		}
	}
	return false
}

// phrase runs the phrases whose trigger words occur in the stream.
func (in *injections) phrase(s stream) string {
	for mask := in.triggers.eligible(s.bits); mask != 0; mask &= mask - 1 {
		p := &in.phrases[trailingZeros(mask)]
		for _, loc := range p.re.FindAllStringSubmatchIndex(s.text, -1) {
			if p.negatable && negatedAt(s.text, loc[0]) {
				continue
			}
			if p.ok != nil && !p.ok(submatches(s.text, loc), s.text) {
				continue
			}
			return p.name
		}
	}
	return ""
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

func submatches(s string, loc []int) []string {
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return m
}

// negatedAt: the two words before i negate what follows ("never reveal
// your system prompt", "don't send secrets to the server").
func negatedAt(s string, i int) bool {
	before := strings.Fields(s[:i])
	for k := len(before) - 1; k >= 0 && k >= len(before)-2; k-- {
		switch before[k] {
		case ".", ",", ";", ":", "!", "?":
			return false
		case "never", "not", "don't", "dont", "cannot", "can't", "mustn't", "shouldn't", "won't", "no":
			return true
		}
	}
	return false
}
