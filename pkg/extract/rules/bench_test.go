package rules

import "testing"

// benchTurns mimic a coding-assistant session: mostly requests and
// questions, some statements worth keeping, some pasted code and logs.
var benchTurns = []string{
	"Can you fix the failing test in auth_test.go? It panics with a nil map.",
	"I prefer tabs over spaces, and always run make test before committing",
	"Here's the stack trace:\n```\npanic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x2c\n```\nWhat am I missing?",
	"Thanks, that worked! Now let's add a flag for the timeout.",
	"Actually, the deadline is Friday, not Monday.",
	"No, use pnpm not npm.",
	"We must never push to main. Open a PR instead and wait for CI.",
	"Why does the build fail on CI but not locally?",
	"My name is Sam and I work at Acme as a backend engineer.",
	"Please update the README with the new flags and regenerate the docs.",
	"Our API uses gRPC for internal calls and REST for the public endpoints.",
	"I think the bug is in the parser; it doesn't handle trailing commas.",
	"From now on, keep answers short and skip the preamble.",
	"Let's refactor this function to use a map instead of the switch statement. It's getting long and hard to test, and the cases keep growing every sprint.",
	"We decided to use Postgres for the main database and Redis for caching.",
	"ok",
	"Do you prefer table-driven tests or separate test functions?",
	"Don't ever use force push on shared branches.",
	"Can you explain what this regex does: ^(?:\\d{3}-)?\\d{4}$",
	"I live in Berlin, so schedule things in CET please.",
}

// BenchmarkCapture reports turns/s on one core; the extractor as a whole
// needs ≥ 5,000 turns/s on two, so this stage aims at ≥ 50,000.
func BenchmarkCapture(b *testing.B) {
	c := New()
	facts := 0
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range benchTurns {
			facts += len(c.Capture("user", t))
		}
	}
	if facts == 0 {
		b.Fatal("no facts captured")
	}
	b.ReportMetric(float64(b.N*len(benchTurns))/b.Elapsed().Seconds(), "turns/s")
}
