package recall

import (
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestAsksErrors: questions asking which errors (bugs, crashes) there were,
// and questions that only mention one.
func TestAsksErrors(t *testing.T) {
	for q, want := range map[string]bool{
		"Which errors have we fixed in billing-worker so far?":                    true,
		"What error did I run into in our second session, and how did we fix it?": true,
		"How many crashes did the importer have last week?":                       true,
		"List the bugs we found in the parser":                                    true,
		"What exceptions does the client throw?":                                  true,
		"How did we fix the import cycle in billing-worker?":                      true,
		"how was the hydration mismatch resolved":                                 true,
		"What fixed the flaky login test?":                                        true,
		"How do I work around the rate limit?":                                    true,
		"How did we solve it?":                                                    true,
		"Who fixed the login page?":                                               false,
		"How did the fixture loader change?":                                      false,
		"What did we decide about the fix-up commits?":                            false,
		"How is the prefix computed?":                                             false,
		"Why did the deploy fail?":                                                false,
		"Does the error page show a stack trace?":                                 false,
		"What problems has Caroline faced?":                                       false,
	} {
		if got := asksErrors(q); got != want {
			t.Errorf("asksErrors(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestReportsError: a first line saying something failed, and a quote of
// what was printed.
func TestReportsError(t *testing.T) {
	for text, want := range map[string]bool{
		"Build broke: `import cycle not allowed` between internal/httpapi and internal/models.":  true,
		"billing-worker crashes on start:\n\n```\npanic: assignment to entry in nil map\n```":    true,
		"Calls to the customer API keep failing with `context deadline exceeded` after 2s.":      true,
		"Next.js complains in src/api/client.ts: `Text content does not match`.":                 true,
		"React keeps warning in OrderTable.tsx: `Each child in a list should have a unique key`": true,
		"Failed jobs get 5 attempts before the dead-letter queue.":                               false, // says it, quotes nothing
		"Then the config becomes:\n```yaml\nretry:\n  on_failure: 5\n```":                        false, // fails on no first line
		"Use `errors.Is` to compare wrapped errors.":                                             true,  // a false positive the rule accepts: advice about errors, quoting code
	} {
		if got := reportsError(text); got != want {
			t.Errorf("reportsError(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestAnswersError: a turn whose message before it in its session reported
// an error is the reply that says how it was fixed; a fact is no reply.
func TestAnswersError(t *testing.T) {
	reply := memory.Memory{Content: "Sage: Move the shared types into a leaf package.", Tags: []string{TranscriptTag},
		Evidence: "Dmitri: Build broke: `import cycle not allowed` between internal/httpapi and internal/models."}
	if !answersError(&reply) {
		t.Error("the reply to an error report: want answersError")
	}
	other := reply
	other.Evidence = "Dmitri: Thanks, that works."
	if answersError(&other) {
		t.Error("a reply to a thank-you: want not answersError")
	}
	fact := reply
	fact.Tags = nil
	if answersError(&fact) {
		t.Error("a memory that is no conversation turn: want not answersError")
	}
}
