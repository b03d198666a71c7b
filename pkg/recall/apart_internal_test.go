package recall

import (
	"fmt"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestChannelsApart: two channels whose first ten hits share at most one
// memory are apart; two sharing two are not; fewer than ten hits prove
// nothing.
func TestChannelsApart(t *testing.T) {
	hits := func(prefix string, n int, shared ...string) []store.Hit {
		var out []store.Hit
		for _, id := range shared {
			out = append(out, store.Hit{Memory: memory.Memory{ID: id}})
		}
		for i := len(out); i < n; i++ {
			out = append(out, store.Hit{Memory: memory.Memory{ID: fmt.Sprintf("%s%d", prefix, i)}})
		}
		return out
	}
	if !channelsApart(hits("d", 12, "x"), hits("l", 12, "x")) {
		t.Error("one shared of ten: want apart")
	}
	if channelsApart(hits("d", 12, "x", "y"), hits("l", 12, "y", "x")) {
		t.Error("two shared of ten: want not apart")
	}
	if channelsApart(hits("d", 9), hits("l", 12)) {
		t.Error("nine dense hits: too few to say")
	}
	// Shared beyond the first ten does not count.
	lex := hits("l", 12)
	lex[11] = store.Hit{Memory: memory.Memory{ID: "d0"}}
	if !channelsApart(hits("d", 12), lex) {
		t.Error("a memory shared only at rank 12: want apart")
	}
}

// TestWeightsForApartChannels: a long question over apart channels leans
// on the lexical channel, unless it names a time; a short one keeps its
// weights, already at least as lexical.
func TestWeightsForApartChannels(t *testing.T) {
	apart := []candidate{{}, {apart: true}}
	long := "How did we fix the import cycle in metrics-exporter?"
	if got := weightsFor(long, apart); got != apartWeights {
		t.Errorf("long question, apart channels: %+v, want %+v", got, apartWeights)
	}
	if got := weightsFor(long, []candidate{{}, {}}); got != AdaptiveWeights(long) {
		t.Errorf("long question, channels agreeing: %+v, want the adaptive %+v", got, AdaptiveWeights(long))
	}
	dated := "Which error did I run into on May 15, and how did we fix it?"
	if got := weightsFor(dated, apart); got != AdaptiveWeights(dated) {
		t.Errorf("question naming a date: %+v, want the adaptive %+v", got, AdaptiveWeights(dated))
	}
	short := "metrics-exporter import cycle"
	if got := weightsFor(short, apart); got != AdaptiveWeights(short) {
		t.Errorf("short question: %+v, want the adaptive %+v", got, AdaptiveWeights(short))
	}
}

// TestSubjectCaptured: a query term in eight of the dense channel's first
// ten hits, missing from one of the lexical channel's best (within
// capturedNear of the first), holds the dense channel; in seven it does not, nor when the lexical best names it too,
// nor when it is only the name of the speaker before each turn.
func TestSubjectCaptured(t *testing.T) {
	const query = "How did we fix the import cycle in billing-worker?"
	turn := func(i int, content string) store.Hit {
		return store.Hit{Memory: memory.Memory{ID: fmt.Sprint(i), Content: content, Tags: []string{TranscriptTag}}}
	}
	dense := func(naming int, body func(i int) string) []store.Hit {
		var out []store.Hit
		for i := range 12 {
			if i < naming {
				out = append(out, turn(i, body(i)+" in billing-worker"))
			} else {
				out = append(out, turn(i, "Dmitri: something else entirely"))
			}
		}
		return out
	}
	said := func(i int) string { return fmt.Sprintf("Dmitri: I raised setting %d", i) }
	answer := []store.Hit{turn(99, "Dmitri: Build broke: `import cycle not allowed` between internal/store and internal/models.")}
	if !subjectCaptured(query, dense(8, said), answer) {
		t.Error("the project in 8 of 10 dense hits, not in the lexical best: want captured")
	}
	if subjectCaptured(query, dense(7, said), answer) {
		t.Error("the project in 7 of 10 dense hits: want not captured")
	}
	named := []store.Hit{turn(98, "Dmitri: the import cycle in billing-worker is back")}
	if subjectCaptured(query, dense(10, said), named) {
		t.Error("the lexical best names the project too: want not captured")
	}
	// A speaker named in the question is the prefix of each of their turns:
	// who spoke, not a subject.
	var byNate []store.Hit
	for i := range 12 {
		byNate = append(byNate, turn(i, fmt.Sprintf("Nate: my turtles ate %d leaves", i)))
	}
	other := []store.Hit{turn(97, "Joanna: turtles are calm pets")}
	if subjectCaptured("Why does Nate like turtles as pets?", byNate, other) {
		t.Error("the name is only the speaker prefix of the dense hits: want not captured")
	}
	// The answer a hair below a memory naming the project and "fix" by
	// chance ("a fixed set of ports"): still one of the lexical best.
	chance := store.Hit{Memory: memory.Memory{ID: "96", Content: "Dmitri: billing-worker moved ports: the balancer forwards a fixed set", Tags: []string{TranscriptTag}}, Score: 9.2}
	near := answer[0]
	near.Score = 8.4
	if !subjectCaptured(query, dense(8, said), []store.Hit{chance, near}) {
		t.Error("the answer within capturedNear of a lexical best naming the project: want captured")
	}
	near.Score = 7
	if subjectCaptured(query, dense(8, said), []store.Hit{chance, near}) {
		t.Error("the answer far below a lexical best naming the project: want not captured")
	}
	if subjectCaptured(query, dense(9, said)[:9], answer) {
		t.Error("nine dense hits: too few to say")
	}
}

// TestCapturedSubjectsAndTheRest: the terms that hold the dense channel are
// the subject's (an identifier's whole and parts), and the question
// without them keeps what was asked.
func TestCapturedSubjectsAndTheRest(t *testing.T) {
	const query = "How did we fix the import cycle in billing-worker?"
	var dense []store.Hit
	for i := range 10 {
		dense = append(dense, store.Hit{Memory: memory.Memory{ID: fmt.Sprint(i), Content: fmt.Sprintf("Dmitri: billing-worker setting %d", i), Tags: []string{TranscriptTag}}})
	}
	answer := []store.Hit{{Memory: memory.Memory{ID: "a", Content: "Dmitri: Build broke: import cycle not allowed", Tags: []string{TranscriptTag}}, Score: 7}}
	got := capturedSubjects(query, dense, answer)
	slices.Sort(got)
	if want := []string{"bill", "billing-worker", "worker"}; !slices.Equal(got, want) {
		t.Fatalf("capturedSubjects = %v, want %v", got, want)
	}
	if rest := withoutTerms(query, got); rest != "How did we fix the import cycle in" {
		t.Errorf("withoutTerms = %q, want the question without the project", rest)
	}
	if rest := withoutTerms("billing-worker?", got); rest != "" {
		t.Errorf("withoutTerms of the subject alone = %q, want empty", rest)
	}
	// A common word that holds the dense channel is also what is asked: only
	// a name is taken out.
	if rest := withoutTerms("What is Gina's favorite style of dance?", lexical.Terms("dance")); rest != "" {
		t.Errorf("withoutTerms of a common word = %q, want no second question", rest)
	}
	if rest := withoutTerms("Where did Gina dance with Jon?", lexical.Terms("Jon")); rest != "Where did Gina dance with" {
		t.Errorf("withoutTerms of a capitalised name = %q", rest)
	}
}

// subjectCaptured reports whether some term of query holds the dense
// channel (capturedSubjects).
func subjectCaptured(query string, dense, lex []store.Hit) bool {
	return len(capturedSubjects(query, dense, lex)) > 0
}
