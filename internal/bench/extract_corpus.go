package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Turn templates for the extraction benchmark: what agent conversations
// hold, in rough proportion — questions and chatter that yield nothing,
// preferences, directives, corrections, self-disclosure, project facts,
// and the agent's longer replies.
var (
	userTurns = []string{
		"I prefer %s over %s, and always run %s before committing.",
		"Can you look at why the %s job fails on the staging cluster since yesterday?",
		"Never push directly to main; open a pull request and wait for two approvals.",
		"We decided to use %s for the analytics store because it needs no extra server.",
		"No, use %s, not %s — we moved off it last month.",
		"thanks, that worked!",
		"From now on, keep answers short and skip the summaries at the end.",
		"I work at Globex as a platform engineer, mostly on the %s service.",
		"Our API runs on port 8080 behind nginx, and the admin UI on 9090.",
		"how do I rerun only the failing tests with %s?",
		"Make sure to use %s when you touch the build scripts.",
		"ok",
		"The deploy takes about ten minutes; don't cancel it halfway or the lock stays held.",
		"Remember that the %s cluster is shared with the data team.",
		"Hmm, I don't like %s much, the error messages are confusing.",
	}
	assistantTurns = []string{
		"I looked at the %s pipeline: the failing step is the integration test stage, which times out after 600 seconds " +
			"because the database container starts slowly. I raised the wait to 120 seconds and reran it; it passed in 7 minutes.",
		"Done. I replaced the %s calls with %s in the three build scripts and ran the whole suite; everything is green. " +
			"One test was flaky on the first run (TestRetryQueue) and passed on the second.",
		"Here is the plan: first migrate the schema with the %s tool, then backfill the new column in batches of 10,000 rows, " +
			"and only then switch the reads. I will open a pull request for each step.",
		"Noted — I will use %s from now on.",
	}
	fills = []string{"tabs", "spaces", "make test", "pnpm", "npm", "yarn", "PostgreSQL", "SQLite", "go test -run",
		"billing", "deploy", "ruff", "black", "kubectl", "helm", "terraform", "bazel", "gradle", "docker compose"}
)

// benchConversations makes n conversations of turns turns each, user and
// agent alternating, deterministic for a seed.
func benchConversations(n, turns int, seed uint64) [][]memory.Event {
	rng := rand.New(rand.NewPCG(seed, 1))
	fill := func(tmpl string) string {
		args := make([]any, 0, 3)
		for range countVerbs(tmpl) {
			args = append(args, fills[rng.IntN(len(fills))])
		}
		return fmt.Sprintf(tmpl, args...)
	}
	ts := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	out := make([][]memory.Event, n)
	for c := range out {
		conv := make([]memory.Event, turns)
		for i := range conv {
			role, content := "user", fill(userTurns[rng.IntN(len(userTurns))])
			if i%2 == 1 {
				role, content = "assistant", fill(assistantTurns[rng.IntN(len(assistantTurns))])
			}
			conv[i] = memory.Event{ID: fmt.Sprintf("c%d-t%d", c, i), Type: memory.EventTurn, Tenant: "bench",
				Namespace: "default", SessionID: fmt.Sprintf("c%d", c), Subject: "user-1", Role: role, Content: content,
				TS: ts.Add(time.Duration(c*turns+i) * time.Second)}
		}
		out[c] = conv
	}
	return out
}

func countVerbs(s string) int {
	n := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '%' && s[i+1] == 's' {
			n++
		}
	}
	return n
}
