package embedder

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// said is the transcript fact of message i of session s, said at i minutes.
func said(s string, i int, content string) memory.FactMessage {
	ts := time.Date(2026, 1, 1, 9, i, 0, 0, time.UTC)
	return memory.FactMessage{Op: memory.FactUpsert, Tenant: "acme", SourceEvent: fmt.Sprintf("acme:%s-%d", s, i), Rule: "transcript",
		Memory: memory.Memory{ID: memory.DeterministicID("acme", "transcript", s, fmt.Sprint(i)), Tenant: "acme", Namespace: "default",
			Subject: "alice", Session: s, Key: "transcript/" + s, Content: content, Domain: "general", Type: memory.TypeEpisode,
			Kind: memory.KindEpisodic, Layer: memory.LayerBuffer, Importance: 0.2, Confidence: 0.75, Tags: []string{memory.TranscriptTag},
			Source: memory.SourceTurn, CreatedAt: ts, ModifiedAt: ts, ValidFrom: ts}}
}

// TestTranscriptContext: whatever order a session's turns are stored in,
// each transcript memory ends up with the message said before it in its
// session as evidence; other sessions are not mixed in, and a message is
// never folded into another however alike they are.
func TestTranscriptContext(t *testing.T) {
	f := newFixture(t)
	msgs := []memory.FactMessage{
		said("s1", 0, "Caroline: What's your favourite hiking trail around here?"),
		said("s1", 1, "Melanie: The ridge loop above the lake."),
		said("s1", 2, "Caroline: Good idea, I'll try that."),
		said("s1", 3, "Melanie: Good idea, I'll try that."),
		said("s2", 2, "Bob: Unrelated session, same minute."),
	}
	for _, i := range []int{2, 4, 0, 3, 1} { // out of order
		if err := f.handle(t, msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]memory.Memory{}
	for _, m := range f.all(t) {
		got[m.ID] = m
	}
	if len(got) != len(msgs) {
		t.Fatalf("%d memories stored, want %d (a message folded into another?)", len(got), len(msgs))
	}
	want := []string{"", msgs[0].Memory.Content, msgs[1].Memory.Content, msgs[2].Memory.Content, ""}
	for i, fm := range msgs {
		if e := got[fm.Memory.ID].Evidence; e != want[i] {
			t.Errorf("message %d (%q): evidence %q, want %q", i, fm.Memory.Content, e, want[i])
		}
	}
}
