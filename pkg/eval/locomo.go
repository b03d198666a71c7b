// Package eval measures Recollect's retrieval quality on public benchmarks
// through the public HTTP API, without an LLM: LoCoMo conversations are
// stored turn by turn and every question is scored on whether recall returns
// its evidence turns (LongMemEval's recall_any@k, recall_all@k and nDCG@k).
package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AdversarialCategory is LoCoMo's category of questions with no answer in
// the conversation; retrieval scoring leaves them out.
const AdversarialCategory = 5

// categoryNames are the question categories of the released LoCoMo data
// (the numbering differs from the order in the paper's text).
var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// CategoryName names a LoCoMo question category.
func CategoryName(c int) string {
	if n, ok := categoryNames[c]; ok {
		return n
	}
	return "category-" + strconv.Itoa(c)
}

// sessionDateLayout is how LoCoMo writes session dates: "1:56 pm on 8 May, 2023".
const sessionDateLayout = "3:04 pm on 2 January, 2006"

// Sample is one LoCoMo conversation with its questions.
type Sample struct {
	ID       string
	SpeakerA string
	SpeakerB string
	Sessions []Session
	QA       []QA
}

// Session is one dated session of a conversation.
type Session struct {
	Number   int
	DateText string
	Date     time.Time // zero when DateText does not parse
	Turns    []Turn
}

// Turn is one dialogue turn.
type Turn struct {
	DiaID   string `json:"dia_id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption,omitempty"`
	// TS is the turn's own time when the data has one (DevChat); LoCoMo
	// turns take their session's date.
	TS time.Time `json:"-"`
}

// QA is one question. Evidence is as written in the data (possibly
// malformed); Index is the question's position in the sample's qa list.
type QA struct {
	Index    int
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// Turns lists every turn of the sample in order.
func (s *Sample) Turns() []Turn {
	var out []Turn
	for _, se := range s.Sessions {
		out = append(out, se.Turns...)
	}
	return out
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []QA                       `json:"qa"`
}

// LoadLoCoMo reads a file in the LoCoMo benchmark's JSON schema.
func LoadLoCoMo(path string) ([]Sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read locomo data: %w", err)
	}
	samples, err := ParseLoCoMo(data)
	if err != nil {
		return nil, fmt.Errorf("parse locomo data %s: %w", path, err)
	}
	return samples, nil
}

// ParseLoCoMo decodes the LoCoMo JSON schema.
func ParseLoCoMo(data []byte) ([]Sample, error) {
	var raw []rawSample
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := make([]Sample, 0, len(raw))
	for i, r := range raw {
		if r.SampleID == "" {
			return nil, fmt.Errorf("sample %d has no sample_id", i)
		}
		s := Sample{ID: r.SampleID, QA: r.QA}
		for j := range s.QA {
			s.QA[j].Index = j
		}
		if err := decodeConversation(&s, r.Conversation); err != nil {
			return nil, fmt.Errorf("sample %s: %w", r.SampleID, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeConversation(s *Sample, conv map[string]json.RawMessage) error {
	str := func(key string) string {
		var v string
		_ = json.Unmarshal(conv[key], &v)
		return v
	}
	s.SpeakerA, s.SpeakerB = str("speaker_a"), str("speaker_b")
	for key, val := range conv {
		num, ok := strings.CutPrefix(key, "session_")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			continue // session_N_date_time and friends
		}
		se := Session{Number: n, DateText: str(key + "_date_time")}
		if err := json.Unmarshal(val, &se.Turns); err != nil {
			return fmt.Errorf("decode %s: %w", key, err)
		}
		if t, err := time.Parse(sessionDateLayout, se.DateText); err == nil {
			se.Date = t
		}
		s.Sessions = append(s.Sessions, se)
	}
	sort.Slice(s.Sessions, func(i, j int) bool { return s.Sessions[i].Number < s.Sessions[j].Number })
	return nil
}

// TurnContent is the memory content of a turn: "<speaker>: <text>", with
// the caption of a shared image, which is all a text-only memory sees of it.
func TurnContent(t Turn, captions bool) string {
	return strings.TrimSpace(t.Speaker) + ": " + turnText(t, captions)
}
