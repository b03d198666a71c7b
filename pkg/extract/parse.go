package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// maxAnswerChars bounds the answer text the parser looks at.
const maxAnswerChars = 256 << 10

// parseHow says how an answer was read.
type parseHow string

const (
	parsedClean    parseHow = "ok"       // valid JSON, maybe inside fences or prose
	parsedTidied   parseHow = "tidied"   // after fixing trailing commas, Python literals, smart quotes
	parsedSalvaged parseHow = "salvaged" // the complete facts of a cut-off or broken answer
)

// errNoFacts is an answer that holds no readable extraction.
var errNoFacts = errors.New("answer holds no readable facts")

// parseAnswer reads a model's extraction answer: {"facts": [...]}, a bare
// array, Nebo's five category arrays, or a single fact; inside code fences
// or prose; with common JSON slips fixed; and, when it is cut off, the
// facts that came through whole. It fails only when nothing readable is
// there, so the caller can ask the model to repair its answer.
func parseAnswer(content string) ([]rawFact, parseHow, error) {
	if len(content) > maxAnswerChars {
		content = content[:maxAnswerChars]
	}
	if trimmed := strings.TrimSpace(content); strings.HasPrefix(trimmed, "{") {
		// The whole answer one fact: a model that ignored the wrapper.
		var one rawFact
		if json.Unmarshal([]byte(trimmed), &one) == nil {
			return []rawFact{one}, parsedClean, nil
		}
	}
	var a answer
	err := llm.DecodeJSON(content, &a)
	if err == nil {
		return a.facts, parsedClean, nil
	}
	if t := tidy(content); t != content {
		if llm.DecodeJSON(t, &a) == nil {
			return a.facts, parsedTidied, nil
		}
	}
	if facts := salvage(tidy(content)); len(facts) > 0 {
		return facts, parsedSalvaged, nil
	}
	return nil, "", fmt.Errorf("%w: %v", errNoFacts, err)
}

// answer is an extraction answer in any of the shapes models use.
type answer struct {
	facts []rawFact
}

// Wrapper fields holding the fact list, and Nebo's category arrays with
// the type their facts take.
var (
	listFields    = []string{"facts", "memories", "items", "results", "extracted_facts", "data"}
	categoryTypes = [][2]string{
		{"preferences", "preference"}, {"entities", "entity"}, {"decisions", "decision"}, {"styles", "style"},
		{"artifacts", "artifact"}, {"policies", "policy"}, {"workflows", "workflow"}, {"pitfalls", "pitfall"},
		{"architecture", "architecture"},
	}
)

func (a *answer) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return errNoFacts
	}
	switch b[0] {
	case '[':
		return a.list(b, "")
	case '{':
	default:
		return fmt.Errorf("%w: want an object or an array", errNoFacts)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	lower := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		lower[strings.ToLower(strings.TrimSpace(k))] = v
	}
	for _, f := range listFields {
		v, ok := lower[f]
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case isNull(v):
			return nil
		case v[0] == '[':
			return a.list(v, "")
		case v[0] == '{':
			return a.UnmarshalJSON(v) // {"facts": {"preferences": [...]}}
		}
	}
	found := false
	for _, ct := range categoryTypes {
		cat, typ := ct[0], ct[1]
		if v, ok := lower[cat]; ok && len(bytes.TrimSpace(v)) > 0 && bytes.TrimSpace(v)[0] == '[' {
			if err := a.list(v, typ); err != nil {
				return err
			}
			found = true
		}
	}
	if found {
		return nil
	}
	if len(m) == 0 {
		return nil // {}: nothing to extract
	}
	// Not a single fact either: that shape is read only as the whole
	// answer, so a fact inside a broken list is not taken for all of it.
	return fmt.Errorf("%w: an object without a fact list", errNoFacts)
}

// list decodes an array of facts (objects or strings); typ is the type of
// facts that name none. Elements that are not facts are skipped, but an
// array with none at all is not an extraction.
func (a *answer) list(b []byte, typ string) error {
	var xs []json.RawMessage
	if err := json.Unmarshal(b, &xs); err != nil {
		return err
	}
	n := 0
	for _, x := range xs {
		if isNull(x) {
			continue
		}
		var f rawFact
		if json.Unmarshal(x, &f) != nil {
			continue
		}
		if f.Type == "" {
			f.Type = typ
		}
		a.facts = append(a.facts, f)
		n++
	}
	if n == 0 && len(xs) > 0 {
		return fmt.Errorf("%w: an array of %d non-facts", errNoFacts, len(xs))
	}
	return nil
}
