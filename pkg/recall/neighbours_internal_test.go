package recall

import (
	"math"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestNeighboursTwoTurnsAway: a turn takes part of the relevance of a
// stronger turn one or two turns away in its session (the same speaker
// going on after the other's reply), the nearer pulling harder; turns of
// other sessions and turns further away take nothing.
func TestNeighboursTwoTurnsAway(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	turn := func(session string, sec int) candidate {
		return candidate{mem: &memory.Memory{Session: session, CreatedAt: t0.Add(time.Duration(sec) * time.Second)}}
	}
	cands := []candidate{turn("s1", 0), turn("s1", 1), turn("s1", 2), turn("s1", 3), turn("s1", 4), turn("s2", 2)}
	rels := []float64{0.1, 0.1, 0.9, 0.1, 0.1, 0.1}
	got := smoothNeighbours(cands, rels)
	want := []float64{0.1 + neighbourPull2*0.8, 0.1 + neighbourPull*0.8, 0.9, 0.1 + neighbourPull*0.8, 0.1 + neighbourPull2*0.8, 0.1}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Errorf("turn %d: relevance %.4f, want %.4f", i, got[i], want[i])
		}
	}
	far := []candidate{turn("s1", 0), turn("s1", 1), turn("s1", 2), turn("s1", 3)}
	if got := smoothNeighbours(far, []float64{0.9, 0.1, 0.1, 0.1}); got[3] != 0.1 {
		t.Errorf("three turns away: relevance %.4f, want 0.1 unchanged", got[3])
	}
}

func TestSpeakerOf(t *testing.T) {
	tr := func(content string) memory.Memory {
		return memory.Memory{Content: content, Tags: []string{memory.TranscriptTag}}
	}
	for _, tc := range []struct {
		m    memory.Memory
		want string
	}{
		{tr("Ann Lee: hello there"), "Ann Lee"},
		{tr("user: my shell is fish"), "user"},
		{tr("no speaker here"), ""},
		{tr("a very long line that goes on and on without any colon until here: x"), ""},
		{tr("two\nlines: x"), ""},
		{memory.Memory{Content: "Ann: a fact, not a turn"}, ""},
	} {
		if got := speakerOf(&tc.m); got != tc.want {
			t.Errorf("speakerOf(%q) = %q, want %q", tc.m.Content, got, tc.want)
		}
	}
}

func TestAsksQuestion(t *testing.T) {
	for text, want := range map[string]bool{
		"Ann: What's your favourite book?":  true,
		"Ann: how did it go?":               true,
		"Ann: Did you like it?":             false, // yes or no
		"Ann: What a day. I loved it.":      false,
		"Ann: Nice! Where was that taken?":  true,
		"Bob: where (I wonder) is it now ?": true,
	} {
		m := memory.Memory{Content: text, Tags: []string{memory.TranscriptTag}}
		if got := asksQuestion(&m); got != want {
			t.Errorf("asksQuestion(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestInContext: a reply sharing nothing with the query is scored with
// the message it replies to when that is a candidate: the cosine of the
// query with the normalised sum of the two vectors (the context weighted).
func TestInContext(t *testing.T) {
	tr := func(session, content, evidence string, v []float32, sem float64) candidate {
		return candidate{mem: &memory.Memory{Session: session, Content: content, Evidence: evidence, Vector: v,
			Tags: []string{memory.TranscriptTag}}, semantic: sem}
	}
	q := []float32{1, 0, 0}
	prev := []float32{0.8, 0.6, 0}
	reply := []float32{0, 0.6, 0.8}
	cands := []candidate{
		tr("s1", "Ann: You should try pottery to unwind.", "", prev, 0.8),
		tr("s1", "Bob: Good idea, I'll try that.", "Ann: You should try pottery to unwind.", reply, 0),
		tr("s2", "Bob: Good idea, I'll try that.", "Ann: You should try pottery to unwind.", reply, 0), // its context is in s1 only
		tr("s1", "Cy: unrelated", "Dee: not a candidate", reply, 0),
	}
	inContext(q, cands)
	w := contextWeight
	want := (0 + w*0.8) / math.Sqrt(1+w*w+2*w*0.36)
	if math.Abs(cands[1].semantic-want) > 1e-6 {
		t.Errorf("reply in context: semantic %.4f, want %.4f", cands[1].semantic, want)
	}
	if cands[0].semantic != 0.8 {
		t.Errorf("the question: semantic %.4f, want 0.8 unchanged (in context of nothing)", cands[0].semantic)
	}
	if cands[2].semantic != 0 || cands[3].semantic != 0 {
		t.Errorf("without their context among the candidates: %.4f, %.4f, want 0", cands[2].semantic, cands[3].semantic)
	}
}
