package filter

import (
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Verdict is what becomes of an explicit memory: one a user or agent stored
// on purpose (learn, MCP, "memory" events, import). Such a memory is never
// dropped after it was accepted at the door: it is stored as it is, stored
// with its secrets redacted, or stored quarantined.
type Verdict string

// Verdicts on explicit memories.
const (
	VerdictAccept     Verdict = "accept"     // stored as it is
	VerdictRedact     Verdict = "redact"     // secrets replaced by [redacted:<kind>], the rest stored
	VerdictQuarantine Verdict = "quarantine" // stored, searchable on request, never put into a prompt
	VerdictRefuse     Verdict = "refuse"     // nothing to store (empty or over the length bound)
)

// maxRedactions bounds the secrets replaced in one memory; a text with more
// is replaced whole by one placeholder (see redactAll).
const maxRedactions = 64

// Stated is the verdict on an explicit memory and what to store of it.
// Content keeps its lines; it never holds a detected secret. Quarantine
// names the detector that fired (a bounded set of names, see
// QuarantineLabel); Redacted lists the kinds of secrets replaced, one per
// replacement. Detail says why a memory was refused.
type Stated struct {
	Verdict    Verdict
	Content    string
	Key        string
	Tags       []string
	Quarantine string
	Redacted   []string
	Reason     Reason // set only when refused
	Detail     string
}

// CheckStated decides what to store of an explicit memory. Nothing is
// refused but what cannot be stored at all (nothing left after cleaning,
// longer than the bound); a secret is redacted in place; an instruction
// aimed at the model (injection phrases, hidden markup, forged turns,
// smuggled invisible text) quarantines the memory, with its secrets
// redacted too. Line breaks are kept: code and transcripts stay readable.
func (f *Filter) CheckStated(c Candidate) Stated {
	flat := clean(c.Content)
	st := Stated{Content: cleanLines(c.Content), Key: cleanKey(c.Key)}
	switch n := utf8.RuneCountInString(st.Content); {
	case strings.TrimSpace(c.Content) == "":
		return f.refuse(st, ReasonEmpty, "content is empty")
	case n > f.cfg.MaxContentChars:
		return f.refuse(st, ReasonTooLong, "content is longer than the bound")
	}
	if flat.text == "" {
		// Only invisible characters: keep what was sent, out of prompts.
		st.Content = strings.TrimSpace(c.Content)
		st.Quarantine = "invisible text"
	}
	if flat.hidden > maxHidden {
		st.Quarantine = "hidden characters"
	}
	if st.Quarantine == "" {
		p := f.probe(flat.text, c.Content)
		st.Quarantine = f.inj.find(&p)
	}
	if st.Quarantine == "" && st.Key != "" {
		if kp := f.probe(keyWords(st.Key), ""); f.inj.find(&kp) != "" {
			st.Quarantine = f.inj.find(&kp) + " (in the key)"
		}
	}
	st.Content, st.Redacted = f.redactAll(st.Content, flat.text)
	if st.Key != "" {
		if kp := f.probe(clean(c.Key).text, c.Key); f.sec.find(&kp) != "" {
			st.Redacted = append(st.Redacted, redactionKind(f.sec.hit(&kp).kind))
			st.Key = ""
		}
	}
	st.Tags = cleanTags(c.Tags, func(t string) bool {
		p := f.probe(t, t)
		return f.sec.find(&p) == ""
	})
	switch {
	case st.Quarantine != "":
		st.Verdict = VerdictQuarantine
	case len(st.Redacted) > 0:
		st.Verdict = VerdictRedact
	default:
		st.Verdict = VerdictAccept
	}
	if len(st.Redacted) > 0 && len(st.Tags) < memory.MaxTags && !contains(st.Tags, memory.RedactedTag) {
		st.Tags = append(st.Tags, memory.RedactedTag)
	}
	return st
}

func (f *Filter) refuse(st Stated, reason Reason, detail string) Stated {
	st.Verdict, st.Reason, st.Detail = VerdictRefuse, reason, detail
	st.Content = ""
	if f.onReject != nil {
		f.onReject(reason)
	}
	return st
}

// redactAll replaces every secret the detectors find by [redacted:<kind>]
// in text (with its lines) and returns it with the kinds replaced. flat is
// text as the detectors read it (one line): each secret is a substring of
// it. When a secret spans a line break of text, text gives way to flat, so
// no secret is ever kept for the sake of layout.
func (f *Filter) redactAll(text, flat string) (string, []string) {
	var kinds []string
	for range maxRedactions {
		p := f.probe(flat, text)
		h := f.sec.hit(&p)
		if h.kind == "" {
			return text, kinds
		}
		kind := redactionKind(h.kind)
		mark := "[redacted:" + kind + "]"
		next := replaceValue(flat, h.value, mark)
		if next == flat {
			// Only inside longer words: replace it there too.
			next = strings.ReplaceAll(flat, h.value, mark)
		}
		if next == flat {
			// A secret the detector cannot place: keep no text that holds it.
			return mark, append(kinds, kind)
		}
		flat = next
		if t := replaceValue(text, h.value, mark); t != text {
			text = t
		} else {
			text = flat
		}
		kinds = append(kinds, kind)
	}
	// More secrets than maxRedactions: keep none of the text's tokens that
	// the detectors still flag, by giving up its layout and tokens.
	if p := f.probe(flat, text); f.sec.find(&p) != "" {
		return "[redacted:secrets]", append(kinds, "secrets")
	}
	return text, kinds
}

// replaceValue replaces every occurrence of v in s that does not sit inside
// a longer word (a password "sun" is not redacted out of "sunshine").
func replaceValue(s, v, mark string) string {
	if v == "" {
		return s
	}
	var b strings.Builder
	for rest := s; ; {
		i := strings.Index(rest, v)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := i + len(v)
		if inWord(rest, i-1) && inWord(rest, i) || inWord(rest, j) && inWord(rest, j-1) && isWordByte(v[len(v)-1]) {
			b.WriteString(rest[:j])
			rest = rest[j:]
			continue
		}
		b.WriteString(rest[:i])
		b.WriteString(mark)
		rest = rest[j:]
	}
	return b.String()
}

func inWord(s string, i int) bool { return i >= 0 && i < len(s) && isWordByte(s[i]) }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// cleanLines is clean applied line by line: the same characters go, but
// line breaks (at most one blank line in a row) stay.
func cleanLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		t := clean(l).text
		if t == "" {
			if blank++; blank > 1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, t)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n ")
}

// redactionKind is a secret's kind as a short slug for the placeholder
// ("aws access key id" → "aws-key").
func redactionKind(name string) string {
	switch name {
	case "aws access key id":
		return "aws-key"
	case "credential in a statement", "credential in an assignment", "credential in a url":
		return "credential"
	case "password in a connection string":
		return "password"
	case "payment card number":
		return "card-number"
	case "social security number":
		return "ssn"
	case "long hex string":
		return "hex-key"
	case "high-entropy string":
		return "random-token"
	}
	return slug(name)
}

// QuarantineLabel is a quarantine reason as a metric label: the detector's
// name as a slug, without where it was found.
func QuarantineLabel(reason string) string {
	return slug(strings.TrimSuffix(reason, " (in the key)"))
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c + 'a' - 'A')
		default:
			dash = true
		}
	}
	return b.String()
}
