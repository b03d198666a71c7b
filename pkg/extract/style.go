package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"time"
)

// Style observations (001, Nebo's personality.go).
const (
	// DirectiveKey is the key of a subject's personality directive.
	DirectiveKey = "personality/directive"
	// styleLifespan is how long one reinforcement keeps an observation
	// alive: count × 14 days since it was last reinforced.
	styleLifespan   = 14 * 24 * time.Hour
	maxDirectiveObs = 15  // strongest observations a directive is drawn from
	maxStyleObs     = 100 // observations kept per subject; the weakest go
	maxStyleSources = 8   // event ids kept per observation, for idempotence
)

// styleObs is one style observation of a subject: its first wording is
// kept, later ones reinforce it.
type styleObs struct {
	Key        string    `json:"key"`
	Value      string    `json:"value"`
	Count      int       `json:"count"`
	Confidence float64   `json:"confidence"`
	First      time.Time `json:"first"`
	Last       time.Time `json:"last"`
	Sources    []string  `json:"sources,omitempty"`
}

// styles is a subject's observations and the fingerprint of those its
// current directive came from.
type styles struct {
	Obs         []styleObs `json:"obs"`
	DirectiveOf string     `json:"directive_of,omitempty"`
}

// observe records an observation from source: a new key is added; a known
// one is reinforced (count, last reinforced, confidence += (1 − c) × 0.2)
// without overwriting its value, once per source. It reports a change.
func (s *styles) observe(key, value string, confidence float64, at time.Time, source string) bool {
	for i := range s.Obs {
		o := &s.Obs[i]
		if o.Key != key {
			continue
		}
		if slices.Contains(o.Sources, source) {
			return false
		}
		o.Count++
		o.Last = at
		o.Confidence += (1 - o.Confidence) * 0.2
		o.Sources = append(o.Sources, source)
		if len(o.Sources) > maxStyleSources {
			o.Sources = slices.Clone(o.Sources[len(o.Sources)-maxStyleSources:])
		}
		return true
	}
	s.Obs = append(s.Obs, styleObs{Key: key, Value: value, Count: 1, Confidence: confidence, First: at, Last: at, Sources: []string{source}})
	if len(s.Obs) > maxStyleObs {
		s.Obs = s.strongest(maxStyleObs)
	}
	return true
}

// decay drops observations not reinforced within their lifespan (count ×
// 14 days) and returns how many went.
func (s *styles) decay(now time.Time) int {
	kept := s.Obs[:0]
	for _, o := range s.Obs {
		if now.Sub(o.Last) < time.Duration(o.Count)*styleLifespan {
			kept = append(kept, o)
		}
	}
	n := len(s.Obs) - len(kept)
	s.Obs = kept
	return n
}

// strongest returns up to n observations, most reinforced first.
func (s *styles) strongest(n int) []styleObs {
	out := slices.Clone(s.Obs)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		return a.Key < b.Key
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// fingerprint identifies a set of observations with their counts: a
// directive is synthesised again only when it changes.
func fingerprint(obs []styleObs) string {
	h := sha256.New()
	for _, o := range obs {
		fmt.Fprintf(h, "%s\x00%d\x00", o.Key, o.Count)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// observationLines are the directive prompt's input, Nebo's format.
func observationLines(obs []styleObs) string {
	var b []byte
	for _, o := range obs {
		b = fmt.Appendf(b, "- %s: %s (observed %d times)\n", o.Key, o.Value, o.Count)
	}
	return string(b)
}
