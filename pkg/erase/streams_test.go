package erase

import (
	"encoding/json"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Which messages of the streams are about the purged subject: by its name,
// by a purged memory's id or source event, or by a session of its; never
// another tenant's, another subject's, or a deletion notice.
func TestStreamMatchers(t *testing.T) {
	target := Target{Tenant: "acme", Subject: "ada", IDs: []string{"m1"}, Events: []string{"e-src"}}
	s := target.sets()
	s.sessions = map[string]bool{"\x00s-ada": true}
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		match func([]byte, targetSets, Target) bool
		msg   any
		want  bool
	}{
		{"event of the subject", matchEvent, memory.Event{ID: "e1", Type: memory.EventTurn, Tenant: "acme", Subject: "ada"}, true},
		{"event a purged memory came from", matchEvent, memory.Event{ID: "e-src", Type: memory.EventTurn, Tenant: "acme"}, true},
		{"assistant turn in the subject's session", matchEvent, memory.Event{ID: "e2", Type: memory.EventTurn, Tenant: "acme", SessionID: "s-ada", Role: "assistant"}, true},
		{"another subject in that session", matchEvent, memory.Event{ID: "e3", Type: memory.EventTurn, Tenant: "acme", SessionID: "s-ada", Subject: "bob"}, false},
		{"another subject", matchEvent, memory.Event{ID: "e4", Type: memory.EventTurn, Tenant: "acme", Subject: "bob"}, false},
		{"same subject, another tenant", matchEvent, memory.Event{ID: "e5", Type: memory.EventTurn, Tenant: "globex", Subject: "ada"}, false},
		{"fact of the subject", matchFact, memory.FactMessage{Op: memory.FactUpsert, Tenant: "acme", Memory: memory.Memory{ID: "m9", Subject: "ada"}}, true},
		{"fact of a purged memory", matchFact, memory.FactMessage{Op: memory.FactUpsert, Tenant: "acme", Memory: memory.Memory{ID: "m1"}}, true},
		{"fact from a purged memory's event", matchFact, memory.FactMessage{Op: memory.FactUpsert, Tenant: "acme", SourceEvent: "e-src"}, true},
		{"feedback on a purged memory", matchFact, memory.FactMessage{Op: memory.FactFeedback, Tenant: "acme", Feedback: &memory.Feedback{MemoryID: "m1"}}, true},
		{"fact of another tenant", matchFact, memory.FactMessage{Op: memory.FactUpsert, Tenant: "globex", Memory: memory.Memory{ID: "m1", Subject: "ada"}}, false},
		{"fact of another subject", matchFact, memory.FactMessage{Op: memory.FactUpsert, Tenant: "acme", Memory: memory.Memory{ID: "m2", Subject: "bob"}}, false},
		{"stored notice of a purged memory", matchStored, memory.StoredEvent{Tenant: "acme", ID: "m1", Op: memory.StoredInserted}, true},
		{"its deletion notice stays", matchStored, memory.StoredEvent{Tenant: "acme", ID: "m1", Op: memory.StoredDeleted}, false},
		{"stored notice of another memory", matchStored, memory.StoredEvent{Tenant: "acme", ID: "m2", Op: memory.StoredInserted}, false},
		{"not JSON", matchEvent, "ada", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.match(enc(tc.msg), s, target); got != tc.want {
				t.Fatalf("match = %v, want %v", got, tc.want)
			}
		})
	}
}
