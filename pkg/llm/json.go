package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// maxJSONStarts bounds how many '{' or '[' DecodeJSON tries as the start of
// the value, so prose full of brackets costs little.
const maxJSONStarts = 32

// ErrNoJSON means an answer holds no JSON value that decodes into the
// target.
var ErrNoJSON = errors.New("no JSON value in answer")

// DecodeJSON decodes the JSON value in a model's answer into v, forgiving
// what models wrap around it: the answer whole, else the inside of each
// ``` fence, else the first object or array that decodes, with prose
// before or after it ignored.
func DecodeJSON(content string, v any) error {
	content = strings.TrimSpace(content)
	if content == "" {
		return fmt.Errorf("%w: empty answer", ErrNoJSON)
	}
	var firstErr error
	try := func(s string) bool {
		err := decodeFirst(s, v)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return err == nil
	}
	if try(content) {
		return nil
	}
	for _, block := range fenced(content) {
		if try(block) {
			return nil
		}
	}
	starts := 0
	for i := 0; i < len(content) && starts < maxJSONStarts; i++ {
		if content[i] != '{' && content[i] != '[' {
			continue
		}
		starts++
		if try(content[i:]) {
			return nil
		}
	}
	if firstErr != nil {
		return fmt.Errorf("%w: %v", ErrNoJSON, firstErr)
	}
	return ErrNoJSON
}

// decodeFirst decodes the value s starts with into v, ignoring what
// follows it. On failure v is zeroed, so a later candidate does not inherit
// fields from a rejected one.
func decodeFirst(s string, v any) error {
	var raw json.RawMessage
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv.Elem().SetZero()
		}
		return err
	}
	return nil
}

// fenced returns the insides of ``` fences, language tag dropped.
func fenced(s string) []string {
	var out []string
	for {
		start := strings.Index(s, "```")
		if start < 0 {
			return out
		}
		rest := s[start+3:]
		end := strings.Index(rest, "```")
		if end < 0 {
			return out
		}
		block := rest[:end]
		if nl := strings.IndexByte(block, '\n'); nl >= 0 && !bytes.ContainsAny([]byte(block[:nl]), "{[") {
			block = block[nl+1:] // drop the language tag line
		}
		out = append(out, strings.TrimSpace(block))
		s = rest[end+3:]
	}
}
