package eval

import (
	"testing"
	"time"
)

const tinyLoCoMo = `[{
  "sample_id": "conv-26",
  "conversation": {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_10_date_time": "9:05 am on 3 June, 2023",
    "session_10": [{"speaker": "Bob", "dia_id": "D10:1", "text": "Later."}],
    "session_2_date_time": "1:56 pm on 8 May, 2023",
    "session_2": [
      {"speaker": "Ann", "dia_id": "D2:1", "text": " Look at this. ", "img_url": ["http://x"], "blip_caption": "a photo of a red kite", "query": "kite"},
      {"speaker": "Bob", "dia_id": "D2:2", "text": "Nice kite!"}
    ],
    "session_3_date_time": "sometime",
    "session_3": []
  },
  "qa": [
    {"question": "What did Ann fly?", "answer": "a kite", "evidence": ["D2:1"], "category": 4},
    {"question": "What did Bob say later?", "answer": 2023, "evidence": ["D10:1"], "category": 2},
    {"question": "What did Ann sell?", "adversarial_answer": "a kite", "evidence": [], "category": 5}
  ],
  "event_summary": {}, "observation": {}, "session_summary": {}
}]`

func TestParseLoCoMo(t *testing.T) {
	samples, err := ParseLoCoMo([]byte(tinyLoCoMo))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 1 {
		t.Fatalf("samples = %d", len(samples))
	}
	s := samples[0]
	if s.ID != "conv-26" || s.SpeakerA != "Ann" || s.SpeakerB != "Bob" {
		t.Fatalf("sample = %+v", s)
	}
	var numbers []int
	for _, se := range s.Sessions {
		numbers = append(numbers, se.Number)
	}
	if len(numbers) != 3 || numbers[0] != 2 || numbers[1] != 3 || numbers[2] != 10 {
		t.Fatalf("sessions in order %v, want [2 3 10]", numbers)
	}
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !s.Sessions[0].Date.Equal(want) {
		t.Fatalf("session 2 date = %v, want %v", s.Sessions[0].Date, want)
	}
	if !s.Sessions[1].Date.IsZero() || s.Sessions[1].DateText != "sometime" {
		t.Fatalf("unparsable date = %v (%q)", s.Sessions[1].Date, s.Sessions[1].DateText)
	}
	turns := s.Turns()
	if len(turns) != 3 || turns[0].DiaID != "D2:1" || turns[2].DiaID != "D10:1" {
		t.Fatalf("turns = %+v", turns)
	}
	if got := TurnContent(turns[0], true); got != "Ann: Look at this. [shared an image: a photo of a red kite]" {
		t.Fatalf("content with caption = %q", got)
	}
	if got := TurnContent(turns[0], false); got != "Ann: Look at this." {
		t.Fatalf("content without caption = %q", got)
	}
	if len(s.QA) != 3 || s.QA[2].Index != 2 || s.QA[2].Category != AdversarialCategory || s.QA[1].Evidence[0] != "D10:1" {
		t.Fatalf("qa = %+v", s.QA)
	}
}

func TestParseLoCoMoRejects(t *testing.T) {
	for name, data := range map[string]string{
		"not json":      `{`,
		"no sample id":  `[{"conversation": {}, "qa": []}]`,
		"bad turn list": `[{"sample_id": "x", "conversation": {"session_1": "nope"}, "qa": []}]`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseLoCoMo([]byte(data)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestMatchAudit(t *testing.T) {
	samples, err := ParseLoCoMo([]byte(tinyLoCoMo))
	if err != nil {
		t.Fatal(err)
	}
	entries := []AuditEntry{
		{QuestionID: "locomo_0_qa0", Question: "What did Ann fly?", CorrectEvidence: []string{"D2:2"}}, // by id
		{QuestionID: "locomo_7_qa9", Question: "what did bob say  later?"},                             // by text
		{QuestionID: "locomo_0_qa1", Question: "A question that is not there"},                         // loaded, unmatched
		{QuestionID: "locomo_5_qa1", Question: "Another conversation's question"},                      // not loaded: ignored
	}
	matched, unmatched := MatchAudit(entries, samples)
	if unmatched != 1 {
		t.Fatalf("unmatched = %d, want 1", unmatched)
	}
	if len(matched) != 2 {
		t.Fatalf("matched = %v", matched)
	}
	if e, ok := matched[QAKey{"conv-26", 0}]; !ok || e.CorrectEvidence[0] != "D2:2" {
		t.Fatalf("qa 0 not matched by id: %+v", matched)
	}
	if _, ok := matched[QAKey{"conv-26", 1}]; !ok {
		t.Fatalf("qa 1 not matched by text: %+v", matched)
	}
}
