// Package strictjson is the one JSON decoder of every door (events,
// query requests, imports): it refuses trailing data, duplicate keys and
// unknown fields, and names the field or offset in a *memory.FieldError.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Unmarshal decodes exactly one JSON value from data into v. It refuses
// empty input, data after the value, an object repeating a key (keys that
// differ only in case count as repeated, since encoding/json would fill
// the same field with both) and fields v does not have. Every error is a
// *memory.FieldError (so errors.Is(err, memory.ErrInvalid)).
func Unmarshal(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return nil
}

// Check verifies that data holds exactly one well-formed JSON value with
// no repeated key in any object; it does not decode. Well-formed input
// without a repeated key (every request a client gets right) is checked by
// a byte scan; anything else is walked token by token for the error that
// names the field.
func Check(data []byte) error {
	if json.Valid(data) && !repeatsKey(data) {
		return nil
	}
	return walk(data)
}

// repeatsKey reports whether an object of data, which must be one valid
// JSON value, may repeat a key (case folded). A "maybe" sends the input to
// walk, which decides exactly; the scan only has to miss nothing.
func repeatsKey(data []byte) bool {
	type obj struct {
		start     int // this object's first key in keys
		expectKey bool
	}
	var objs []obj
	var keys []string
	var inObject []bool // per open container: an object?
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{':
			inObject = append(inObject, true)
			objs = append(objs, obj{start: len(keys), expectKey: true})
		case '[':
			inObject = append(inObject, false)
		case '}':
			inObject = inObject[:len(inObject)-1]
			keys = keys[:objs[len(objs)-1].start]
			objs = objs[:len(objs)-1]
		case ']':
			inObject = inObject[:len(inObject)-1]
		case ',':
			if n := len(inObject); n > 0 && inObject[n-1] {
				objs[len(objs)-1].expectKey = true
			}
		case '"':
			j, escaped := i+1, false
			for ; data[j] != '"'; j++ {
				if data[j] == '\\' {
					escaped = true
					j++
				}
			}
			if n := len(inObject); n > 0 && inObject[n-1] && objs[len(objs)-1].expectKey {
				top := &objs[len(objs)-1]
				top.expectKey = false
				key := string(data[i+1 : j])
				if escaped {
					if err := json.Unmarshal(data[i:j+1], &key); err != nil {
						return true
					}
				}
				for _, k := range keys[top.start:] {
					if strings.EqualFold(k, key) {
						return true
					}
				}
				keys = append(keys, key)
			}
			i = j
		}
	}
	return false
}

// walk checks data token by token and names what is wrong.
func walk(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []frame
	started := false
	for {
		if started && len(stack) == 0 {
			break
		}
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if !started {
					return &memory.FieldError{Field: "body", Reason: "is empty (want one JSON value)"}
				}
				return &memory.FieldError{Field: "body", Reason: fmt.Sprintf("ends before the JSON value is complete (offset %d)", dec.InputOffset())}
			}
			return syntaxError(err, dec.InputOffset())
		}
		started = true
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := &stack[n-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				valueDone(stack)
				continue
			}
			key, _ := tok.(string)
			fold := strings.ToLower(key)
			if prev, dup := top.keys[fold]; dup {
				field := joinPath(stack[:n-1], key, -1)
				if prev == key {
					return &memory.FieldError{Field: field, Reason: "appears twice in the same object"}
				}
				return &memory.FieldError{Field: field, Reason: fmt.Sprintf("repeats the key %q (keys differ only in case)", prev)}
			}
			top.keys[fold] = key
			top.key = key
			top.wantKey = false
			continue
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true, keys: map[string]string{}, index: -1})
			case '[':
				stack = append(stack, frame{index: 0})
			case ']':
				stack = stack[:len(stack)-1]
				valueDone(stack)
			}
			continue
		}
		valueDone(stack)
	}
	// Exactly one value: anything but the end of input after it is refused.
	if dec.More() {
		return &memory.FieldError{Field: "body", Reason: fmt.Sprintf("has data after the JSON value at offset %d (send one JSON value, not several)", dec.InputOffset())}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &memory.FieldError{Field: "body", Reason: fmt.Sprintf("has data after the JSON value at offset %d (send one JSON value, not several)", dec.InputOffset())}
	}
	return nil
}

// frame is one open object or array while walking tokens.
type frame struct {
	object  bool
	wantKey bool
	keys    map[string]string // lower-cased key -> key as sent
	key     string            // current key of an object
	index   int               // current index of an array
}

// valueDone records that the value under the top frame is complete.
func valueDone(stack []frame) {
	if n := len(stack); n > 0 {
		if stack[n-1].object {
			stack[n-1].wantKey = true
		} else {
			stack[n-1].index++
		}
	}
}

// joinPath renders the path of the open frames, then key (if not "") or
// index (if >= 0): events[3].content.
func joinPath(stack []frame, key string, index int) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	if key != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
	} else if index >= 0 {
		b.WriteString("[" + strconv.Itoa(index) + "]")
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

func syntaxError(err error, offset int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	return &memory.FieldError{Field: "body", Reason: fmt.Sprintf("is not valid JSON at offset %d: %v", offset, err)}
}

// decodeError turns an encoding/json error into a FieldError naming the field.
func decodeError(err error) error {
	var fe *memory.FieldError
	if errors.As(err, &fe) {
		return err
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "body"
		}
		return &memory.FieldError{Field: field, Reason: fmt.Sprintf("must be %s, not JSON %s (offset %d)", typeName(te), te.Value, te.Offset)}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		if name == "" {
			return &memory.FieldError{Field: "body", Reason: `has a field with an empty name (""), which is not a known field`}
		}
		return &memory.FieldError{Field: name, Reason: "is not a known field"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &memory.FieldError{Field: "body", Reason: "ends before the JSON value is complete"}
	}
	return &memory.FieldError{Field: "body", Reason: msg}
}

func typeName(te *json.UnmarshalTypeError) string {
	if te.Type == nil {
		return "another type"
	}
	return "a " + te.Type.String()
}
