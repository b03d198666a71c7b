// Package filter decides whether an extracted fact may be stored, whatever
// produced it (rule capture, an LLM, an import). Every fact is cleaned
// (control, zero-width, bidi and smuggling characters stripped, whitespace
// collapsed, key normalised), bounded in length, refused when it holds a
// credential or an instruction aimed at the model (prompt injection), and
// refused unless the conversation it came from grounds it: its words,
// numbers and names are there, and the conversation does not negate what it
// asserts. Evidence is kept only when it is itself grounded.
//
// Grounding follows Clanker's isTextGroundedInSource (a word-aligned
// compact-substring pass, else ≥ 45% token overlap with all words needed
// for short facts) and adds light stemming, subject-free third-person
// rewrites ("I prefer" → "User prefers"), exact numbers, names that must not
// be invented, and a polarity check both ways ("I don't like X" does not
// ground "likes X", "I like X" does not ground "does not like X"). Injection detection starts from Nebo's and Clanker's patterns and
// tells instructions about the model apart from instructions about the
// user's work, which memory exists to keep.
package filter

import (
	"fmt"
	"unicode/utf8"
)

// Candidate is a fact as an extractor proposes it.
type Candidate struct {
	Key      string
	Content  string
	Evidence string
	Tags     []string
}

// Reason says why a fact was rejected.
type Reason string

// Reasons for rejection.
const (
	ReasonEmpty      Reason = "empty"      // nothing left after cleaning, or no content words
	ReasonTooLong    Reason = "too_long"   // longer than Config.MaxContentChars
	ReasonInjection  Reason = "injection"  // an instruction aimed at the model's rules, identity or prompt
	ReasonSecret     Reason = "secret"     // a credential, key, token or password
	ReasonUngrounded Reason = "ungrounded" // the source does not say it
	ReasonNegated    Reason = "negated"    // the source says the opposite ("I don't like X" → "likes X")
)

// Reasons lists every reason, for metrics.
func Reasons() []Reason {
	return []Reason{ReasonEmpty, ReasonTooLong, ReasonInjection, ReasonSecret, ReasonUngrounded, ReasonNegated}
}

// Result is the filtered fact. When Accepted, Content, Key, Evidence and
// Tags are what to store. When rejected for a secret, Content and Evidence
// are blanked so that logging a result never leaks the credential; Detail
// never quotes a secret.
type Result struct {
	Content  string
	Key      string
	Evidence string // "" when the candidate had none or it was dropped (Detail says why)
	Tags     []string
	Accepted bool
	Reason   Reason // "" when accepted
	Detail   string
	// Grounding is 1 for a verbatim fact, else the share of its content
	// words found in the source; 0 when grounding did not run.
	Grounding float64
}

// Filter checks facts. It is safe for concurrent use.
type Filter struct {
	cfg      Config
	onReject func(Reason)
	inj      *injections
	sec      *secrets
}

// Option configures a Filter.
type Option func(*Filter)

// WithConfig sets the configuration; fields that fail Validate keep their
// defaults.
func WithConfig(c Config) Option {
	return func(f *Filter) {
		d := DefaultConfig()
		if c.MaxContentChars < 1 {
			c.MaxContentChars = d.MaxContentChars
		}
		if c.MaxEvidenceChars < 1 {
			c.MaxEvidenceChars = d.MaxEvidenceChars
		}
		if !(c.MinOverlap > 0 && c.MinOverlap <= 1) {
			c.MinOverlap = d.MinOverlap
		}
		if c.ShortFactWords < 0 {
			c.ShortFactWords = d.ShortFactWords
		}
		f.cfg = c
	}
}

// WithMaxContentChars bounds a fact's length (characters after cleaning).
func WithMaxContentChars(n int) Option {
	return func(f *Filter) {
		if n > 0 {
			f.cfg.MaxContentChars = n
		}
	}
}

// WithMinOverlap sets the share of content words the source must hold.
func WithMinOverlap(x float64) Option {
	return func(f *Filter) {
		if x > 0 && x <= 1 {
			f.cfg.MinOverlap = x
		}
	}
}

// WithOnReject calls fn with the reason of every rejection (for metrics).
func WithOnReject(fn func(Reason)) Option {
	return func(f *Filter) { f.onReject = fn }
}

// New builds a filter; the patterns are compiled once here.
func New(opts ...Option) *Filter {
	f := &Filter{cfg: DefaultConfig(), inj: newInjections(), sec: newSecrets()}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Check filters a fact extracted from source, the conversation text it came
// from. Use NewSource and CheckSource to check several facts of one source.
func (f *Filter) Check(source string, c Candidate) Result {
	return f.check(NewSource(source), c, true)
}

// CheckSource is Check with a prepared source.
func (f *Filter) CheckSource(src *Source, c Candidate) Result {
	return f.check(src, c, true)
}

// CheckExplicit filters a fact that has no source to be grounded in: one
// the user or agent stated explicitly (memory_learn, the memories API).
// Everything but grounding applies.
func (f *Filter) CheckExplicit(c Candidate) Result {
	return f.check(nil, c, false)
}

func (f *Filter) check(src *Source, c Candidate, ground bool) Result {
	cc := clean(c.Content)
	r := Result{Content: cc.text, Key: cleanKey(c.Key)}
	switch n := utf8.RuneCountInString(r.Content); {
	case n == 0:
		return f.reject(r, ReasonEmpty, "content is empty")
	case n > f.cfg.MaxContentChars:
		return f.reject(r, ReasonTooLong, fmt.Sprintf("content has %d characters, more than %d", n, f.cfg.MaxContentChars))
	}
	if cc.hidden > maxHidden {
		return f.reject(r, ReasonInjection, "content hides text in invisible characters")
	}
	p := f.probe(r.Content, c.Content)
	injection, secret := f.inj.find(&p), f.sec.find(&p)
	if r.Key != "" && injection == "" {
		if kp := f.probe(keyWords(r.Key), ""); f.inj.find(&kp) != "" {
			injection = f.inj.find(&kp) + " (in the key)"
		}
	}
	if r.Key != "" && secret == "" {
		// The key as written: provider prefixes are case-sensitive.
		if kp := f.probe(clean(c.Key).text, c.Key); f.sec.find(&kp) != "" {
			secret, r.Key = f.sec.find(&kp)+" (in the key)", ""
		}
	}
	if secret != "" {
		r.Content = "" // never hand a credential back, even in a rejection
	}
	switch {
	case injection != "":
		return f.reject(r, ReasonInjection, injection)
	case secret != "":
		return f.reject(r, ReasonSecret, secret)
	}
	fc := newFact(r.Content)
	if fc.words == 0 {
		return f.reject(r, ReasonEmpty, "no content words")
	}
	if ground {
		if src == nil || src.Empty() {
			return f.reject(r, ReasonUngrounded, "the source is empty")
		}
		v := f.ground(src, fc)
		r.Grounding = v.score
		if v.reason != "" {
			return f.reject(r, v.reason, v.detail)
		}
	}
	r.Evidence, r.Detail = f.evidence(src, c.Evidence, ground)
	r.Tags = cleanTags(c.Tags, func(t string) bool {
		p := f.probe(t, t)
		return f.sec.find(&p) == ""
	})
	r.Accepted = true
	return r
}

func (f *Filter) reject(r Result, reason Reason, detail string) Result {
	r.Reason, r.Detail = reason, detail
	if f.onReject != nil {
		f.onReject(reason)
	}
	return r
}

// evidence keeps the candidate's evidence when it is clean and grounded;
// otherwise it returns "" and why.
func (f *Filter) evidence(src *Source, raw string, ground bool) (string, string) {
	ec := clean(raw)
	ev := ec.text
	if ev == "" {
		return "", ""
	}
	ev = cut(ev, f.cfg.MaxEvidenceChars)
	p := f.probe(ev, raw)
	switch {
	case ec.hidden > maxHidden || f.inj.find(&p) != "":
		return "", "evidence dropped: instruction-like text"
	case f.sec.find(&p) != "":
		return "", "evidence dropped: it holds a secret"
	case ground && !evidenceGrounded(src, ev):
		return "", "evidence dropped: not found in the source"
	}
	return ev, ""
}

func (f *Filter) probe(text, raw string) probe { return newProbe(text, raw, f.inj.triggers) }

// keyWords turns a key into words for the injection phrases
// ("ignore-previous-instructions" → "ignore previous instructions").
func keyWords(key string) string {
	b := []byte(key)
	for i, c := range b {
		if c == '-' || c == '/' || c == '_' || c == '.' {
			b[i] = ' '
		}
	}
	return string(b)
}
