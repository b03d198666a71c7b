package openapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// doc is the parsed document, enough of it to walk.
type doc map[string]any

func (d doc) obj(keys ...string) map[string]any {
	var cur any = map[string]any(d)
	for _, k := range keys {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	m, _ := cur.(map[string]any)
	return m
}

// resolve follows a local $ref ("#/components/...").
func (d doc) resolve(s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		s = d.obj(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
		if s == nil {
			return map[string]any{"$unresolved": ref}
		}
	}
}

// validate checks v (decoded JSON) against the subset of JSON Schema the
// document uses: $ref, oneOf, type, enum, required, properties,
// additionalProperties, items and the length and count limits.
func (d doc) validate(schema map[string]any, v any, at string) error {
	s := d.resolve(schema)
	if ref, ok := s["$unresolved"]; ok {
		return fmt.Errorf("%s: unresolved $ref %v", at, ref)
	}
	if alts, ok := s["oneOf"].([]any); ok {
		var errs []string
		for _, alt := range alts {
			err := d.validate(alt.(map[string]any), v, at)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s: matches no alternative: %s", at, strings.Join(errs, "; "))
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%s: %v is not one of %v", at, v, enum)
	}
	switch t, _ := s["type"].(string); t {
	case "":
		return nil
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %T", at, v)
		}
		if maxLen, ok := s["maxLength"].(float64); ok && float64(len([]rune(str))) > maxLen {
			return fmt.Errorf("%s: longer than %v", at, maxLen)
		}
	case "number", "integer":
		n, ok := v.(float64)
		if !ok {
			return fmt.Errorf("%s: want a %s, got %T", at, t, v)
		}
		if t == "integer" && n != math.Trunc(n) {
			return fmt.Errorf("%s: want an integer, got %v", at, n)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want a boolean, got %T", at, v)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %T", at, v)
		}
		if maxItems, ok := s["maxItems"].(float64); ok && float64(len(arr)) > maxItems {
			return fmt.Errorf("%s: more than %v items", at, maxItems)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				if err := d.validate(items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", at, v)
		}
		for _, r := range asStrings(s["required"]) {
			if _, ok := obj[r]; !ok {
				return fmt.Errorf("%s: required property %q is missing", at, r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		addl, _ := s["additionalProperties"].(map[string]any)
		closed := s["additionalProperties"] == false
		for k, pv := range obj {
			if ps, ok := props[k].(map[string]any); ok {
				if err := d.validate(ps, pv, at+"."+k); err != nil {
					return err
				}
				continue
			}
			if closed {
				return fmt.Errorf("%s: property %q is not documented", at, k)
			}
			if addl != nil {
				if err := d.validate(addl, pv, at+"."+k); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("%s: unknown schema type %q", at, t)
	}
	return nil
}

func asStrings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func decode(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}
