package eval

import (
	"strconv"
	"strings"
)

// EvidenceStats counts what evidence cleaning did across questions.
type EvidenceStats struct {
	Repaired int `json:"repaired"` // entries split or reformatted ("D8:6; D9:17", "D:11:26")
	Dropped  int `json:"dropped"`  // pieces that name no dia id ("D")
	Unknown  int `json:"unknown"`  // well-formed ids that match no turn of the conversation
}

// NormalizeEvidence turns LoCoMo evidence strings into canonical dia ids
// ("D<session>:<turn>"), tolerating the data's known defects: several ids in
// one string, a stray colon after the D, and pieces that are no id at all.
// Duplicates are kept once, in order.
func NormalizeEvidence(evidence []string, stats *EvidenceStats) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range evidence {
		pieces := strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
		if len(pieces) != 1 {
			stats.Repaired++
		}
		for _, p := range pieces {
			id, ok := ParseDiaID(p)
			if !ok {
				stats.Dropped++
				continue
			}
			if id != p && len(pieces) == 1 {
				stats.Repaired++
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// ParseDiaID reads a dia id in the forms "D1:3", "d1:3" and "D:1:3" and
// returns it as "D1:3".
func ParseDiaID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[0] != 'D' && s[0] != 'd') {
		return "", false
	}
	rest := strings.TrimPrefix(s[1:], ":")
	a, b, ok := strings.Cut(rest, ":")
	if !ok {
		return "", false
	}
	session, err1 := strconv.Atoi(a)
	turn, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || session < 0 || turn < 0 || strings.ContainsAny(a+b, "+-") {
		return "", false
	}
	return "D" + strconv.Itoa(session) + ":" + strconv.Itoa(turn), true
}

// diaTag is the tag carrying a turn's dia id; tags are lowercased on store.
func diaTag(diaID string) string { return "dia:" + strings.ToLower(diaID) }

// diaFromTag reads a dia id back from a tag, or "" when it is another tag.
func diaFromTag(tag string) string {
	rest, ok := strings.CutPrefix(strings.ToLower(tag), "dia:")
	if !ok {
		return ""
	}
	id, ok := ParseDiaID(rest)
	if !ok {
		return ""
	}
	return id
}
