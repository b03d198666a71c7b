package recall

import (
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestComparedEvents: the two events of a question comparing them in time,
// in the phrasings people use; nothing for other questions.
func TestComparedEvents(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"Was the certificate renewal of ledger-api earlier than the Sentry rollout for dashboard-web?",
			[]string{"the certificate renewal of ledger-api", "the Sentry rollout for dashboard-web"}},
		{"Which came first: HTTP/2 for photo-tagger or the staging teardown of photo-tagger?",
			[]string{"HTTP/2 for photo-tagger", "the staging teardown of photo-tagger"}},
		{"Did the v2 launch of etl-pipeline happen before recipe-bot's switch to Buildkite?",
			[]string{"the v2 launch of etl-pipeline", "recipe-bot's switch to Buildkite"}},
		{"did Ann move to Lisbon after she married Joe", []string{"Ann move to Lisbon", "she married Joe"}},
		{"What happened first, the wedding or the move?", []string{"the wedding", "the move"}},
		{"When did Caroline go to the LGBTQ support group?", nil},
		{"What did I say before the meeting?", nil},
		{"Which came first: the move or the move?", nil},
		{"Is it after 5pm?", nil}, // "it" is no event
		{"Was the meeting before the meeting notes?", []string{"the meeting", "the meeting notes"}},
	} {
		if got := comparedEvents(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("comparedEvents(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestLiftEvents: each compared event's best hit moves into the first
// results, in its order, the others keeping theirs; an event best already
// there stays.
func TestLiftEvents(t *testing.T) {
	results := func(ids ...string) []Result {
		out := make([]Result, len(ids))
		for i, id := range ids {
			out[i] = Result{Memory: memory.Memory{ID: id}}
		}
		return out
	}
	ids := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Memory.ID)
		}
		return out
	}
	best := []hit{{candidate: candidate{mem: &memory.Memory{ID: "e1"}, event: true}}, {candidate: candidate{mem: &memory.Memory{ID: "e2"}, event: true}},
		{candidate: candidate{mem: &memory.Memory{ID: "x"}}}}
	got := ids(liftEvents(results("a", "b", "e1", "c", "e2", "d"), best))
	if want := []string{"e1", "e2", "a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("both below: %v, want %v", got, want)
	}
	got = ids(liftEvents(results("e2", "a", "b", "e1", "c"), best))
	if want := []string{"e2", "e1", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("one already first: %v, want %v", got, want)
	}
	got = ids(liftEvents(results("a", "b", "c"), best[2:]))
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("no event best: %v, want %v", got, want)
	}
}
