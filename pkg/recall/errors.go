package recall

import (
	"regexp"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A question about the errors of a project ("Which errors have we fixed in
// billing-worker so far?", "What error did I run into in our second
// session?") is answered by the turns that reported them — "billing-worker
// crashes on start: ```panic: assignment to entry in nil map```", "Build
// broke: `import cycle not allowed` between …" — which seldom say
// "error", while the turns that share the question's words are about
// something else ("failed jobs get 5 attempts", "we fixed the port"). Such
// a question multiplies by 1 + errorBoost the score of a memory that
// reports an error — its first line says something failed (crash, broke,
// fail, panic, error, exception, traceback, complains, segfault, warns) and it
// quotes what was printed (a code span or block) — and of the turn replying
// to one (answersError), which says how it was fixed. On the four DevChat
// sets (built-in model, turn events) the multi-session class's
// recall_any@10 went 0.769 → 0.949 (classes), 0.919 → 0.946 (DevChat),
// 0.949 → 0.974 (aliases), 0.857 → 0.886 (names), the temporal class's
// recall_all@10 0.803 → 0.887 on the classes; LoCoMo dev asks no such
// question and scores as before. A boost of 0.2 gained less, 0.5 lost
// temporal recall_all@10 on three sets (docs/BENCHMARKS.md).
//
// A question asking how something was fixed ("How did we fix the import
// cycle in billing-worker?", "What solved the flaky login test?") gets the
// same factor: the fix is the reply to the report, and the report names
// what broke in the words that were printed ("Text content does not match
// server-rendered HTML"), seldom in the question's ("the hydration
// mismatch"), while other turns about the project share the question's
// words. The code class's nDCG@10 went up on all four DevChat sets (classes
// 0.799 → 0.840, recall_any@10 0.964 → 0.982; names recall_any@10 0.902 →
// 0.941), no other class moved, LoCoMo dev asks no such question.
const errorBoost = 0.3

var (
	// asksErrorsPattern: a question asking which, what or how many errors
	// (bugs, crashes, exceptions, failures) there were.
	asksErrorsPattern = regexp.MustCompile(`(?i)^\s*(?:which|what|list|how\s+many)\b.*\b(?:errors?|bugs?|crash(?:es)?|exceptions?|failures?)\b`)
	// failsPattern: words saying that something failed.
	failsPattern = regexp.MustCompile(`(?i)\b(?:crash(?:es|ed|ing)?|broke|broken|fail(?:s|ed|ing|ure|ures)?|panic(?:s|ked|king)?|errors?|exceptions?|traceback|complains?|segfault(?:s|ed)?|warn(?:s|ed|ing|ings)?)\b`)
)

// asksFixPattern: a question asking how something was fixed, solved,
// resolved or worked around, or what fixed it.
var asksFixPattern = regexp.MustCompile(`(?i)^\s*(?:how\s+(?:did|do|does|have|has|had|was|were|is|are|can|could|should|would)\b.*\b(?:fix(?:ed)?|solved?|resolved?|work(?:ed)?\s+around)\b|what\s+(?:fixed|solved|resolved)\b)`)

// asksErrors reports whether query asks which errors there were or how one
// was fixed.
func asksErrors(query string) bool {
	return asksErrorsPattern.MatchString(query) || asksFixPattern.MatchString(query)
}

// reportsError reports whether text reports an error: its first line says
// something failed, and it quotes what was printed.
func reportsError(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	return strings.Contains(text, "`") && failsPattern.MatchString(first)
}

// errorFocus is whether a question asks for errors or for a fix; its factor
// favours the memories reporting an error and the replies to them.
type errorFocus bool

func newErrorFocus(query string) errorFocus { return errorFocus(asksErrors(query)) }

// factor is what m's score is multiplied by: 1 + errorBoost when the
// question asks for errors or a fix and m reports an error or replies to
// one, else 1.
func (f errorFocus) factor(m *memory.Memory) float64 {
	if !bool(f) || !reportsError(saidText(m)) && !answersError(m) {
		return 1
	}
	return 1 + errorBoost
}

// answersError reports whether m is a conversation turn replying to one
// that reported an error: the message before it in its session, which a
// transcript memory keeps as its evidence (the speaker's name before it
// does not matter to reportsError), reports one. The reply usually says
// how it was fixed, which the question asks too.
func answersError(m *memory.Memory) bool {
	return m.Transcript() && m.Evidence != "" && reportsError(m.Evidence)
}
