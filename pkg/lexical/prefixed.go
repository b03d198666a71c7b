package lexical

import "strings"

// A word made with "mis-" names its root gone wrong, and the text that
// reports the thing says the root: a question about "the hydration
// mismatch" is answered by a turn quoting "Text content does not match
// server-rendered HTML", one about a misconfigured proxy by "the proxy
// config had the wrong port". Porter2 keeps the prefix, so the two never
// meet in the index. QueryVector therefore adds, for a query term that is
// one of these words, the stem of its root at half the term's weight — the
// root is a broader word than the question's. Query side only, as for the
// irregular verbs (irregular.go): no stored index changes meaning. A list,
// not a rule: "mistake", "mister", "mission", "missing" or "mischief" are
// not "mis-" anything, and stripping any "mis" would search "take", "sing"
// and "chief".
var misWords = []string{
	"misalign align", "misallocate allocate", "misapply apply", "misassign assign",
	"misbehave behave", "miscalculate calculate", "misclassify classify", "miscommunicate communicate",
	"misconfigure configure", "misconfiguration configuration", "miscount count", "misdetect detect",
	"misdiagnose diagnose", "misdirect direct", "misfire fire", "misformat format", "mishandle handle",
	"misidentify identify", "misinterpret interpret", "misjudge judge", "mislabel label",
	"mismanage manage", "mismatch match", "misname name", "misorder order", "misparse parse",
	"misplace place", "misprint print", "misquote quote", "misread read", "misreport report",
	"misrepresent represent", "misroute route", "misspell spell", "misstate state", "mistime time",
	"mistranslate translate", "mistype type", "misunderstand understand", "misunderstood understood",
	"misuse use",
}

// misRoots maps the stem of each "mis-" word to the stem of its root.
var misRoots = func() map[string]string {
	out := make(map[string]string, len(misWords))
	for _, line := range misWords {
		word, root, _ := strings.Cut(line, " ")
		out[stem(word)] = stem(root)
	}
	return out
}()

// misRootWeight is the root's weight, relative to the query term's.
const misRootWeight = 0.5
