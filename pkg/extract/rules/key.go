package rules

import (
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

const (
	maxKeyWords    = 4
	maxKeyWordLen  = 24
	maxTopicSource = 200 // bytes of payload looked at for a key
)

// slug makes a short stable key part from lowercased words:
// "never push to main" → "push-to-main".
func slug(low string, max int) string {
	if len(low) > maxTopicSource {
		low = low[:maxTopicSource]
	}
	// The topic is in the first phrase: "playing pro ball - it's a …".
	for _, sep := range []string{", ", " - ", " – ", " — ", "; ", " (", ": "} {
		if i := strings.Index(low, sep); i > 0 {
			low = low[:i]
		}
	}
	var ws []string
	for _, w := range words(low) {
		w = trimToken(normApos(w))
		if w == "" || slugDrop[w] {
			continue
		}
		ws = append(ws, strings.ReplaceAll(w, "'", ""))
	}
	edge := func(w string) bool { return slugTrim[w] || stopWords[w] }
	for len(ws) > 0 && edge(ws[0]) {
		ws = ws[1:]
	}
	if len(ws) > max {
		ws = ws[:max]
	}
	for len(ws) > 0 && edge(ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	for i, w := range ws {
		if len(w) > maxKeyWordLen {
			cut := maxKeyWordLen
			for cut > 0 && !utf8.RuneStart(w[cut]) {
				cut--
			}
			ws[i] = w[:cut]
		}
	}
	return strings.Join(ws, "-")
}

// procedureSlug keys a workflow by its ordering phrase: "before committing",
// "whenever change schema".
func procedureSlug(low string) string {
	ws := words(low)
	for i, w := range ws {
		w = trimToken(w)
		if !proceduralWords[w] || w == "then" || w == "first" {
			continue
		}
		marker := w
		next := i + 1
		switch {
		case (w == "every" || w == "each") && next < len(ws) && trimToken(ws[next]) == "time":
			marker, next = "whenever", next+1
		case w == "prior" && next < len(ws) && trimToken(ws[next]) == "to":
			marker, next = "before", next+1
		case w == "every" || w == "each":
			continue
		}
		tail := make([]string, 0, 3)
		for _, t := range ws[next:] {
			if t = trimToken(t); t != "you" && t != "we" && t != "i" && len(tail) < 3 {
				tail = append(tail, t)
			}
		}
		if s := slug(marker+" "+strings.Join(tail, " "), 3); strings.Contains(s, "-") {
			return s
		}
	}
	return ""
}

// keyFor joins a prefix and a topic and normalises the result.
func keyFor(prefix, topic string) string {
	k := memory.NormalizeKey(prefix + "/" + topic)
	if len(k) > memory.MaxKeyChars {
		k = strings.TrimRight(k[:memory.MaxKeyChars], "-/")
		for !utf8.ValidString(k) {
			k = k[:len(k)-1]
		}
	}
	return k
}

// prefixFor is the key namespace of a type.
func prefixFor(t memory.Type) string {
	switch t {
	case memory.TypeEntity:
		return "person"
	case memory.TypeFact:
		return "fact"
	default:
		return string(t)
	}
}

// copulaSubject finds "the deadline" in "the deadline is friday", so a later
// correction of the same thing lands on the same key.
func copulaSubject(low string) string {
	for _, v := range []string{" is ", " are ", " was ", " were ", " will be ", " should be ", " has to be ", " needs to be "} {
		if i := strings.Index(low, v); i > 0 && i <= 48 {
			if s := slug(low[:i], 3); s != "" {
				return s
			}
		}
	}
	return ""
}
