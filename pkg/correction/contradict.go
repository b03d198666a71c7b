package correction

import (
	"fmt"
	"regexp"
	"strings"
)

// Contradicts reports whether the correction replaces what older says,
// and why. The correction's own entities decide:
//
//   - when it names the replaced value ("not MySQL", "no longer Jenkins",
//     "from SQLite"), older must say that value, must be about the same
//     subject (every word of it) when one is named, and must not already say
//     the new value;
//   - when it names none ("actually, the deadline is Friday"), older must be
//     a statement about exactly the same subject with the same attribute
//     ("port 8443" replaces a port) and not say the new value.
func (c Correction) Contradicts(older string) (bool, string) {
	ot := tokenSet(older)
	subj := Tokens(c.Subject)
	if len(subj) > 0 && !all(ot, subj) {
		return false, ""
	}
	newTok := Tokens(c.New)
	if len(newTok) > 0 && all(ot, newTok) {
		return false, "" // it already says the new value
	}
	if len(c.Old) > 0 {
		for _, o := range c.Old {
			if t := Tokens(o); len(t) > 0 && all(ot, t) {
				if c.Subject == "" {
					return true, fmt.Sprintf("names the replaced value %q", o)
				}
				return true, fmt.Sprintf("names the replaced value %q of %q", o, c.Subject)
			}
		}
		return false, ""
	}
	if len(subj) == 0 || len(newTok) == 0 {
		return false, ""
	}
	m := olderCopula.FindStringSubmatch(stripMarker(older))
	if m == nil || !sameSet(Tokens(m[1]), subj) {
		return false, ""
	}
	if attr := attribute(c.New); attr != "" && !ot[attr] {
		return false, ""
	}
	return true, fmt.Sprintf("states another value of %q", c.Subject)
}

// Mentioned is a cheap first test on lowercased text: it holds the first
// word of the subject, when one is named, and of a replaced value, when
// one is named. Contradicts decides.
func (c *Correction) Mentioned(low string) bool {
	if len(c.oldFirst) != len(c.Old) {
		c.subjFirst, c.oldFirst = rawFirst(c.Subject), nil
		for _, o := range c.Old {
			c.oldFirst = append(c.oldFirst, rawFirst(o))
		}
	}
	if c.Subject != "" && !strings.Contains(low, c.subjFirst) {
		return false
	}
	if len(c.Old) == 0 {
		return c.Subject != ""
	}
	for _, o := range c.oldFirst {
		if strings.Contains(low, o) {
			return true
		}
	}
	return false
}

// rawFirst is the first word of s, lowercased, as written (no folding).
func rawFirst(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return s
	}
	return strings.Trim(f[0], ".,;:!?\"'`")
}

var olderCopula = regexp.MustCompile(`(?i)^(.{2,80}?) (?:is|are|was|were|uses|use|runs on|runs|lives at|lives in|listens on|goes to|will be|falls on|is due on|is due)\b`)

func stripMarker(s string) string {
	s = strings.TrimSpace(s)
	if loc := marker.FindStringIndex(s); loc != nil && loc[1] < len(s) {
		return s[loc[1]:]
	}
	return s
}

// attribute is the noun that names what a value measures: "port" in
// "port 8443", "timeout" in "a timeout of 15s"; "" for a bare value
// ("Postgres 15", "Friday the 12th").
func attribute(v string) string {
	for _, t := range Tokens(v) {
		if attributes[t] {
			return t
		}
	}
	return ""
}

var attributes = map[string]bool{"port": true, "version": true, "timeout": true, "limit": true, "size": true,
	"replicas": true, "connections": true, "retries": true, "ttl": true, "threshold": true, "coverage": true,
	"region": true, "host": true, "hostname": true, "url": true, "bucket": true, "channel": true, "branch": true}

func tokenSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range Tokens(s) {
		out[t] = true
	}
	return out
}

func all(set map[string]bool, ts []string) bool {
	for _, t := range ts {
		if !set[t] {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, t := range a {
		sa[t] = true
	}
	for _, t := range b {
		sb[t] = true
	}
	if len(sa) != len(sb) {
		return false
	}
	for t := range sa {
		if !sb[t] {
			return false
		}
	}
	return true
}
