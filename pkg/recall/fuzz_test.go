package recall_test

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// fuzzConversation has what the query-reading stages look for: two
// speakers, several sessions, names, dates said relatively, events that a
// question can compare, irregular verbs and a subject every turn repeats.
var fuzzConversation = []said{
	{id: "a1", session: "s1", line: "Anna: I adopted a puppy named Biscuit last Friday!", role: "user"},
	{id: "a2", session: "s1", line: "Ben: Congrats! I drew a portrait of my cat Luna yesterday.", role: "assistant"},
	{id: "a3", session: "s1", line: "Anna: What's your favourite hobby?", role: "user"},
	{id: "a4", session: "s1", line: "Ben: Painting, and I ran a marathon two years ago.", role: "assistant"},
	{id: "b1", session: "s2", line: "Anna: The import cycle in billing-worker broke the build on 8 May 2023.", role: "user"},
	{id: "b2", session: "s2", line: "Ben: Move the shared types of billing-worker into a leaf package.", role: "assistant"},
	{id: "b3", session: "s2", line: "Anna: Good idea, I'll try that.", role: "user"},
	{id: "b4", session: "s2", line: "Ben: billing-worker now runs Go 1.22 after the upgrade.", role: "assistant"},
	{id: "c1", session: "s3", line: "Anna: We went to Rome before the concert in June.", role: "user"},
	{id: "c2", session: "s3", line: "Ben: The concert was after the trip, right? Sweden next year!", role: "assistant"},
}

// FuzzRecallQuery: whatever a question says, Recall over a conversation
// never panics and never fails but for a refused request (a
// *memory.FieldError naming the field); its answer holds at most k
// results, each a stored memory once. The stages that read the question
// (entity split, compared events, dates, speakers, irregular verbs, the
// subject check, names) turn its words into searches and factors; one of
// them once ran an empty search and failed the recall
// (TestRecallComparedEventsWithoutOwnWords). The seeds below run with
// every go test; go test -fuzz FuzzRecallQuery explores from them.
func FuzzRecallQuery(f *testing.F) {
	for _, q := range []string{
		"What pets do Anna and Ben have?",
		"Was the trip to Rome earlier than the concert?",
		"Which came first: the import cycle or the upgrade?",
		"Did the meeting happen before the meeting notes?",
		"Where was Anna on 8 May 2023?",
		"What did I say last Friday about Biscuit?",
		"How long ago did Ben run a marathon?",
		"What has Ben been drawing?",
		"Which city did Anna visit before the concert in June?",
		"What books has Ben read, and which language is Rome's?",
		"How did we fix the import cycle in billing-worker?",
		"Was the before earlier than the after?",
		"which came first: or",
		"Anna and and Ben and",
		"? ! .",
		"the of and",
		"When, between 2023-05-01 and 2023-05-09, did it break?",
		"Ünïcödé naïve café – “quotes” and 日本語",
	} {
		f.Add(q, 10)
	}
	r := conversationRecaller(f, fuzzConversation)
	stored := map[string]bool{}
	for _, m := range fuzzConversation {
		stored[m.id] = true
	}
	f.Fuzz(func(t *testing.T, query string, k int) {
		if !utf8.ValidString(query) {
			return // requests are JSON: their text is valid UTF-8
		}
		if k %= recall.MaxK; k < 0 {
			k += recall.MaxK
		}
		k++ // 1..MaxK
		resp, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: query, K: k, Dry: true})
		if err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("recall %q: %v (%T): not a refusal naming a field", query, err, err)
			}
			return
		}
		if len(resp.Memories) > k {
			t.Fatalf("recall %q, k %d: %d results", query, k, len(resp.Memories))
		}
		seen := map[string]bool{}
		for _, res := range resp.Memories {
			id := res.Memory.ID
			if !stored[id] || seen[id] {
				t.Fatalf("recall %q: result %q is not a stored memory or comes twice", query, id)
			}
			seen[id] = true
		}
	})
}
