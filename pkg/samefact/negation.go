package samefact

import (
	"strings"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// negators are the words that negate a statement; every "n't" does too.
var negators = map[string]bool{
	"not": true, "never": true, "no": true, "none": true, "nothing": true, "nobody": true, "no-one": true,
	"nowhere": true, "neither": true, "nor": true, "without": true, "cannot": true,
}

// negation returns the negating word at field i ("no longer" for "no"
// followed by "longer"), or "".
func negation(fs []field, i int) string {
	w := fs[i].lower
	switch {
	case w == "no" && i+1 < len(fs) && fs[i+1].lower == "longer":
		return "no longer"
	case negators[w], strings.HasSuffix(w, "n't"):
		return w
	}
	return ""
}

// isStopword reports a word package lexical does not index (a function
// word, or a single letter such as "I").
func isStopword(w string) bool { return len(lexical.Terms(w)) == 0 }
