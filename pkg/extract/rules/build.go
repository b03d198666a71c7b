package rules

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// build turns a draft into a Fact: checks the payload carries meaning, routes
// it to a domain, derives the key, grounds the content and fills the scores.
func (c *Capturer) build(ev, name string, d draft, cond, restLow string, fl flag) (Fact, bool) {
	need := d.minContent
	if need == 0 {
		need = 1
	}
	payload := d.payload
	if payload == "" {
		payload = restLow
	}
	if need > 0 && contentWords(payload) < need || unsafe(restLow, d.class) {
		return Fact{}, false
	}
	condLow := asciiLower(cond)
	sig := inspect(restLow + " " + condLow)
	topicLow := d.topic
	if topicLow == "" {
		topicLow = payload
	}
	sig.cat = c.cats.category(words(topicLow))
	if imprecise(name, d, payload, restLow, sig) {
		return Fact{}, false
	}
	typ := typeFor(d.typ, d.class, sig, cond != "")
	domain := domainFor(d.class, sig)

	key := d.key
	if key == "" {
		prefix := d.prefix
		switch {
		case typ != d.typ || prefix == "":
			prefix = prefixFor(typ)
		case d.toolPrefix != "" && domain == memory.DomainToolUsage:
			prefix = d.toolPrefix
		}
		topic := ""
		if typ == memory.TypeWorkflow && cond != "" {
			topic = procedureSlug(condLow)
		}
		if typ == memory.TypeWorkflow && topic == "" {
			topic = procedureSlug(restLow)
		}
		if topic == "" && sig.cat != nil {
			topic = sig.cat.name
			if f := facetOf(words(topicLow), sig.cat); f != "" {
				topic += "-" + f
			}
		}
		if topic == "" {
			topic = slug(topicLow, maxKeyWords)
		}
		if topic == "" {
			topic = slug(restLow, maxKeyWords)
		}
		if topic == "" {
			return Fact{}, false
		}
		key = scopedKey(keyFor(prefix, topic), scopeOf(ev))
	}

	content := d.content
	if cond != "" {
		content = cond + ", " + lowerFirst(content)
	}
	if fl&flagCorrection != 0 && !strings.HasPrefix(asciiLower(content), "actually") {
		// The marker stays: it is what makes the statement a correction
		// downstream (triage, package correction).
		if !strings.HasPrefix(content, "User") && !strings.HasPrefix(content, "The team") {
			content = lowerFirst(content)
		}
		content = "Actually, " + content
	}
	content = groundedContent(sentence(content), ev)
	if content == "" {
		return Fact{}, false
	}

	imp := ImportanceOf(typ)
	if fl&flagCorrection != 0 || strings.HasPrefix(name, "correction.") {
		imp = max(imp, CorrectionImportance)
	}
	conf := memory.ConfidenceExplicit
	if fl&flagInferred != 0 {
		conf = memory.ConfidenceInferred
	}
	return Fact{
		Key:        key,
		Content:    content,
		Domain:     domain,
		Type:       typ,
		Kind:       typ.DefaultKind(),
		Importance: imp,
		Confidence: conf,
		Evidence:   ev,
		Tags:       tagsFor(typ, sig, fl, name),
		Rule:       name,
	}, true
}

// unsafe keeps secrets and prompt-injection text out of memory even before
// the extractor's own filters: a rule never stores "my API key is …".
func unsafe(low string, c class) bool {
	for _, p := range injectionPhrases {
		if strings.Contains(low, p) {
			return true
		}
	}
	if c != classStatement && c != classProfile {
		return false
	}
	for _, w := range secretWords {
		if i := strings.Index(low, w); i >= 0 && hasAny(low[i:], []string{" is ", " are ", " = ", ": ", " was "}) {
			return true
		}
	}
	return false
}

var injectionPhrases = []string{"ignore previous", "ignore all previous", "ignore the previous",
	"ignore prior", "ignore above", "disregard previous", "disregard all", "system prompt",
	"developer message", "jailbreak", "reveal your instructions"}

var secretWords = []string{"password", "passwd", "passphrase", "api key", "api-key", "apikey",
	"secret", "token", "credential", "private key", "ssh key", "pin code", "social security",
	"credit card", "card number"}

// tagsFor labels a fact with its type, topic, tools and how it was said.
func tagsFor(t memory.Type, s signals, fl flag, name string) []string {
	tags := make([]string, 0, 8)
	add := func(v string) {
		v = memory.NormalizeTag(v)
		if v != "" && len(v) <= memory.MaxTagChars && !contains(tags, v) && len(tags) < memory.MaxTags {
			tags = append(tags, v)
		}
	}
	add(string(t))
	if s.cat != nil {
		add(s.cat.name)
	}
	for _, tool := range s.tools {
		add(tool)
	}
	if fl&flagCorrection != 0 || strings.HasPrefix(name, "correction.") {
		add("correction")
	}
	if fl&flagRemember != 0 {
		add("remember")
	}
	return tags
}

// groundedContent keeps the third-person content when enough of its words
// come from the evidence; otherwise it reports the user's own words, so the
// grounding filter downstream (≥45% token overlap or substring) keeps it.
func groundedContent(primary, ev string) string {
	if primary == "" {
		return ""
	}
	if grounded(primary, ev) {
		return primary
	}
	said := sentence(strings.TrimRight(ev, " .!?;:,"))
	if alt := sentence("User said: " + said); grounded(alt, ev) {
		return alt
	}
	return said
}

// grounded: the candidate's compact form is inside the source, or at least
// 45% of its distinct words (three letters or more) occur in the source.
func grounded(cand, src string) bool {
	cc, sc := compact(cand), compact(src)
	if cc == "" {
		return false
	}
	if strings.Contains(" "+sc+" ", " "+cc+" ") {
		return true
	}
	srcWords := strings.Fields(sc)
	var seen []string
	hit := 0
	for _, w := range strings.Fields(cc) {
		if utf8.RuneCountInString(w) < 3 || slices.Contains(seen, w) {
			continue
		}
		seen = append(seen, w)
		if slices.Contains(srcWords, w) {
			hit++
		}
	}
	return hit > 0 && hit*100 >= 45*len(seen)
}

// compact lowercases and keeps letters and digits, single-spaced.
func compact(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}
