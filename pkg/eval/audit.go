package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// AuditEntry is one question of the public LoCoMo audit whose gold answer or
// evidence is wrong ("audited questions").
type AuditEntry struct {
	QuestionID      string   `json:"question_id"` // locomo_<conversation index>_qa<question index>
	Question        string   `json:"question"`
	Category        int      `json:"category"`
	ErrorType       string   `json:"error_type"`
	CitedEvidence   []string `json:"cited_evidence"`
	CorrectEvidence []string `json:"correct_evidence"`
}

// QAKey names a question: its sample and its index in the sample's qa list.
type QAKey struct {
	Sample string
	Index  int
}

// locomo10Order is the order of the samples in the full locomo10.json, which
// the audit's question ids index.
var locomo10Order = []string{"conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47", "conv-48", "conv-49", "conv-50"}

// LoadAudit reads locomo10_audit_errors.json.
func LoadAudit(path string) ([]AuditEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read locomo audit: %w", err)
	}
	var out []AuditEntry
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("parse locomo audit %s: %w", path, err)
	}
	return out, nil
}

// MatchAudit finds the audited questions among the samples. An entry is
// matched by its question id when that question has the same text, else by
// text alone when exactly one question of the samples has it. Entries of
// conversations that are not loaded are ignored; unmatched counts the rest
// that could not be placed.
func MatchAudit(entries []AuditEntry, samples []Sample) (matched map[QAKey]AuditEntry, unmatched int) {
	byID := map[string]*Sample{}
	byText := map[string][]QAKey{}
	for i := range samples {
		s := &samples[i]
		byID[s.ID] = s
		for _, q := range s.QA {
			t := normQuestion(q.Question)
			byText[t] = append(byText[t], QAKey{s.ID, q.Index})
		}
	}
	matched = map[QAKey]AuditEntry{}
	for _, e := range entries {
		conv, qa, ok := parseQuestionID(e.QuestionID)
		loaded := false
		if ok && conv < len(locomo10Order) {
			if s, in := byID[locomo10Order[conv]]; in {
				loaded = true
				if qa < len(s.QA) && normQuestion(s.QA[qa].Question) == normQuestion(e.Question) {
					matched[QAKey{s.ID, qa}] = e
					continue
				}
			}
		}
		if keys := byText[normQuestion(e.Question)]; len(keys) == 1 {
			matched[keys[0]] = e
			continue
		}
		if loaded || !ok {
			unmatched++
		}
	}
	return matched, unmatched
}

func parseQuestionID(id string) (conv, qa int, ok bool) {
	rest, found := strings.CutPrefix(id, "locomo_")
	if !found {
		return 0, 0, false
	}
	c, q, found := strings.Cut(rest, "_qa")
	if !found {
		return 0, 0, false
	}
	conv, err1 := strconv.Atoi(c)
	qa, err2 := strconv.Atoi(q)
	if err1 != nil || err2 != nil || conv < 0 || qa < 0 {
		return 0, 0, false
	}
	return conv, qa, true
}

func normQuestion(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }
