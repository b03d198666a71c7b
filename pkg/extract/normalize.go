package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// typeWords maps what models call a fact's type to a memory type: 004's
// types, Nebo's categories, Clanker's (profile, relationship, project,
// other) and common synonyms.
var typeWords = map[string]memory.Type{
	"policy": memory.TypePolicy, "rule": memory.TypePolicy, "constraint": memory.TypePolicy,
	"requirement": memory.TypePolicy, "directive": memory.TypePolicy, "instruction": memory.TypePolicy,
	"workflow": memory.TypeWorkflow, "procedure": memory.TypeWorkflow, "process": memory.TypeWorkflow,
	"command": memory.TypeWorkflow, "steps": memory.TypeWorkflow, "recipe": memory.TypeWorkflow,
	"pitfall": memory.TypePitfall, "error": memory.TypePitfall, "mistake": memory.TypePitfall,
	"gotcha": memory.TypePitfall, "warning": memory.TypePitfall, "fix": memory.TypePitfall, "lesson": memory.TypePitfall,
	"architecture": memory.TypeArchitecture, "design": memory.TypeArchitecture,
	"decision": memory.TypeDecision, "choice": memory.TypeDecision,
	"preference": memory.TypePreference, "like": memory.TypePreference, "dislike": memory.TypePreference,
	"habit": memory.TypePreference, "convention": memory.TypePreference,
	"fact": memory.TypeFact, "knowledge": memory.TypeFact, "info": memory.TypeFact, "general": memory.TypeFact,
	"other": memory.TypeFact, "project": memory.TypeFact, "environment": memory.TypeFact,
	"config": memory.TypeFact, "configuration": memory.TypeFact, "episode": memory.TypeFact, "event": memory.TypeFact,
	"entity": memory.TypeEntity, "person": memory.TypeEntity, "people": memory.TypeEntity, "profile": memory.TypeEntity,
	"relationship": memory.TypeEntity, "place": memory.TypeEntity, "organization": memory.TypeEntity,
	"team": memory.TypeEntity, "user": memory.TypeEntity,
	"style": memory.TypeStyle, "communication": memory.TypeStyle, "personality": memory.TypeStyle, "tone": memory.TypeStyle,
	"artifact": memory.TypeArtifact, "document": memory.TypeArtifact,
}

// normType reads a model's type, falling back to the key's first segment
// ("person/sarah") and then to fact.
func normType(typ, key string) memory.Type {
	for _, w := range []string{typ, strings.SplitN(key, "/", 2)[0]} {
		w = strings.ToLower(strings.TrimSpace(w))
		if t, ok := typeWords[w]; ok {
			return t
		}
		if t, ok := typeWords[strings.TrimSuffix(w, "s")]; ok {
			return t
		}
	}
	return memory.TypeFact
}

// normKind reads a model's kind, else the type's.
func normKind(kind string, t memory.Type) memory.Kind {
	k := memory.Kind(strings.ToLower(strings.TrimSpace(kind)))
	if k.Valid() {
		return k
	}
	return t.DefaultKind()
}

// keyPrefixes are the key families the types must have: style
// observations are reinforced by key and the personality directive reads
// them by prefix (001).
var keyPrefixes = map[memory.Type]string{memory.TypeStyle: "style/", memory.TypeArtifact: "artifact/"}

// normKey makes a path-like key: the model's, else one from the value's
// first words; a bare name gets the type as its first segment.
func normKey(key string, t memory.Type, value string) string {
	k := memory.NormalizeKey(key)
	if k == "" {
		k = slug(value, 5)
	}
	if p, ok := keyPrefixes[t]; ok {
		if !strings.HasPrefix(k, p) {
			k = p + strings.TrimPrefix(k[strings.LastIndexByte(k, '/')+1:], "-")
		}
	} else if !strings.Contains(k, "/") {
		k = string(t) + "/" + k
	}
	return cutKey(strings.Trim(k, "-/"))
}

// slug is the first n words of s longer than two letters, lowercase and
// hyphen-joined.
func slug(s string, n int) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := make([]string, 0, n)
	for _, w := range words {
		if len(w) < 3 || stopWords[w] {
			continue
		}
		out = append(out, w)
		if len(out) == n {
			break
		}
	}
	return strings.Join(out, "-")
}

var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "that": true, "this": true,
	"user": true, "users": true, "are": true, "was": true, "has": true, "have": true, "from": true, "into": true}

// confidenceOf maps 001's explicit flag to a confidence.
func confidenceOf(explicit *bool) float64 {
	switch {
	case explicit == nil:
		return memory.ConfidenceUnknown
	case *explicit:
		return memory.ConfidenceExplicit
	default:
		return memory.ConfidenceInferred
	}
}

// cutKey bounds a key to memory.MaxKeyChars at a separator when it can.
func cutKey(k string) string {
	if utf8.RuneCountInString(k) <= memory.MaxKeyChars {
		return k
	}
	r := []rune(k)[:memory.MaxKeyChars]
	for i := len(r) - 1; i > memory.MaxKeyChars/2; i-- {
		if r[i] == '-' || r[i] == '/' {
			return string(r[:i])
		}
	}
	return string(r)
}

// limitTags keeps the tags a memory may hold: at most memory.MaxTags of at
// most memory.MaxTagChars characters, normalised, without repeats.
func limitTags(tags []string) []string {
	out := make([]string, 0, min(len(tags), memory.MaxTags))
	seen := map[string]bool{}
	for _, t := range tags {
		t = memory.NormalizeTag(t)
		if t == "" || seen[t] || utf8.RuneCountInString(t) > memory.MaxTagChars {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == memory.MaxTags {
			break
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
