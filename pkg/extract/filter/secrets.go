package filter

import (
	"regexp"
	"strings"
)

// secrets finds credentials in text: provider-prefixed keys and tokens,
// JWTs, private keys, passwords in connection strings and URLs, bearer
// tokens, "password is X" statements, payment card numbers and long random
// strings. It names what it found and never returns the secret itself.
type secrets struct {
	assign   *regexp.Regexp // "password for staging is X", "api key: X"
	ident    *regexp.Regexp // DB_PASSWORD=X, "apiKey": "X"
	reversed *regexp.Regexp // "hunter2 is my password."
	bearer   *regexp.Regexp
	card     *regexp.Regexp
	ssn      *regexp.Regexp
	hexCtx   *regexp.Regexp // words that make a long hex string an identifier
}

// secretKeyword is a credential's name, as people write it.
const secretKeyword = `(?:password|passwd|passphrase|passcode|pwd|pin(?: code| number)?|secret(?: key)?|client[ _-]?secret|` +
	`api[ _-]?(?:key|token|secret)|apikey|access[ _-]?(?:key(?:[ _-]?id)?|token)|secret[ _-]?access[ _-]?key|` +
	`auth[ _-]?token|refresh[ _-]?token|bearer[ _-]?token|session[ _-]?(?:token|key|cookie)|private[ _-]?key|` +
	`signing[ _-]?key|encryption[ _-]?key|master[ _-]?key|token|credentials?|seed phrase|recovery (?:phrase|code|key)|` +
	`mnemonic|otp|2fa code|webhook secret)`

// secretWords gate the checks that need a word naming a credential (they
// are matched as whole words of the probe's stream).
var secretWords = []string{"password", "passwords", "passwd", "passphrase", "passcode", "pwd", "pin",
	"secret", "token", "key", "apikey", "credential", "credentials", "mnemonic", "seed", "otp", "2fa",
	"bearer", "basic", "secretkey", "accesskey", "privatekey", "apitoken", "authtoken", "accesstoken",
	"clientsecret", "recovery"}

// qualifierWord names what a credential is for ("db.internal", "staging");
// a dot only joins parts, so the phrase cannot run past a sentence's end.
const qualifierWord = `[\w@/-]+(?:\.[\w@/-]+)*`

func newSecrets() *secrets {
	return &secrets{
		assign: regexp.MustCompile(`\b(` + secretKeyword + `)(?:\s+(?:for|to|of|on|at)\s+(?:the\s+|my\s+|our\s+)?` + qualifierWord + `(?:\s+` + qualifierWord + `)?)?` +
			`\s*(is|was|=|:=|:|->|=>|(?:is\s+)?set\s+to|equals)\s*(["'` + "`" + `]?)([^\s"'` + "`" + `,;]+)["'` + "`" + `]?(\s+[^\s,;.]+)?`),
		ident:    regexp.MustCompile(`\b(\w*(?:password|passwd|secret|token|api_?key|apikey|access_?key|private_?key|pwd)\w*)["']?\s*(?:=|:=|:)\s*(["'` + "`" + `]?)([^\s"'` + "`" + `,;]+)`),
		reversed: regexp.MustCompile(`(?:^|\s)["'` + "`" + `]?([^\s"'` + "`" + `,;]+)["'` + "`" + `]?\s+(?:is|was)\s+(?:my|the|our|his|her|their|your)\s+(?:[\w-]+\s+)?(password|passcode|passphrase|pin)\s*(?:[.!?,;]|$)`),
		bearer:   regexp.MustCompile(`(?i)\b(?:bearer|basic)\s+([A-Za-z0-9\-._~+/]{16,}=*)`),
		card:     regexp.MustCompile(`\b(?:\d[ -]?){12,18}\d\b`),
		ssn:      regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`),
		hexCtx: regexp.MustCompile(`(?i)\b(?:commits?|sha(?:-?\d+)?|hash(?:es)?|digests?|checksums?|md5|revisions?|rev|` +
			`trace|span|etag|fingerprints?|builds?|objects?|blobs?|images?|uuids?|request id|content id)\b`),
	}
}

// secretHit is a secret found in a text: what kind it is, and the
// characters that hold it (a substring of the probed text), for redaction.
// It is never logged.
type secretHit struct {
	kind  string
	value string
}

// find names the kind of secret in a probed text, or returns "".
func (s *secrets) find(p *probe) string { return s.hit(p).kind }

// hit returns the first secret in a probed text, or a zero secretHit.
func (s *secrets) hit(p *probe) secretHit {
	text, words := p.text, p.s.text // words: lowercase, for keywords
	if len(text) < 6 {
		return secretHit{}
	}
	if p.has(hasDash) && strings.Contains(text, "PRIVATE KEY") || strings.Contains(text, "PuTTY-User-Key-File") {
		return secretHit{"private key", privateKeyBlock(text)}
	}
	if p.tokRun >= 12 {
		if h := s.scanTokens(text); h.kind != "" {
			return h
		}
	}
	if p.digits >= 9 {
		if hasAny(words, "card", "credit", "debit", "visa", "mastercard", "amex", " cc ") {
			for _, m := range s.card.FindAllString(text, -1) {
				if luhn(m) {
					return secretHit{"payment card number", m}
				}
			}
		}
		if hasAny(words, "ssn", "social security") {
			if m := s.ssn.FindString(text); m != "" {
				return secretHit{"social security number", m}
			}
		}
	}
	if !p.s.bits.secret && !p.has(hasEquals) {
		return secretHit{} // every check below needs a credential word or an assignment
	}
	if h := s.statements(text); h.kind != "" {
		return h
	}
	if hasAny(words, " bearer ", " basic ") {
		for _, m := range s.bearer.FindAllStringSubmatch(text, -1) {
			if mixedBody(m[1]) || classifyRandom(m[1]) != notRandom {
				return secretHit{"bearer token", m[1]}
			}
		}
	}
	return secretHit{}
}

// privateKeyBlock is the private key in text: from its BEGIN line (or the
// PuTTY header) to its END line, or to the end of the text.
func privateKeyBlock(text string) string {
	start := strings.Index(text, "PuTTY-User-Key-File")
	if i := strings.Index(text, "PRIVATE KEY"); i >= 0 && (start < 0 || i < start) {
		start = i
		if b := strings.LastIndex(text[:i], "-----BEGIN"); b >= 0 {
			start = b
		}
	}
	if start < 0 {
		return text
	}
	rest := text[start:]
	if e := strings.Index(rest, "-----END"); e >= 0 {
		if k := strings.Index(rest[e:], "PRIVATE KEY-----"); k >= 0 {
			return rest[:e+k+len("PRIVATE KEY-----")]
		}
	}
	return rest
}

// scanTokens checks each token of twelve characters or more (tokens end at
// spaces, quotes and brackets).
func (s *secrets) scanTokens(text string) secretHit {
	for i := 0; i < len(text); {
		for i < len(text) && isTokenDelim(rune(text[i])) {
			i++
		}
		j := i
		for j < len(text) && !isTokenDelim(rune(text[j])) {
			j++
		}
		if tok := text[i:j]; len(tok) >= 12 {
			if h := s.tokenSecret(tok, text); h.kind != "" {
				return h
			}
		}
		i = j
	}
	return secretHit{}
}

func (s *secrets) tokenSecret(tok, text string) secretHit {
	if strings.Contains(tok, "://") {
		if h := urlSecret(tok); h.kind != "" {
			return h
		}
	}
	if !strings.ContainsAny(tok, "=:&?#@") {
		if part := strings.Trim(tok, ".,!?*"); len(part) >= 12 {
			return s.partSecret(part, text)
		}
		return secretHit{}
	}
	for _, part := range strings.FieldsFunc(tok, isPartDelim) {
		part = strings.Trim(part, ".,!?*")
		if len(part) < 12 {
			continue
		}
		if h := s.partSecret(part, text); h.kind != "" {
			return h
		}
	}
	return secretHit{}
}

func isTokenDelim(r rune) bool {
	switch r {
	case ' ', '"', '\'', '`', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>', '|', '\\':
		return true
	}
	return false
}

// isPartDelim splits assignments and paths inside a token ("KEY=value",
// "user:token", "a/b").
func isPartDelim(r rune) bool {
	return r == '=' || r == ':' || r == '&' || r == '?' || r == '#' || r == '@'
}

// partSecret checks one token part: a provider format, a JWT, or a random
// string (a long hex string is a key unless the text calls it a digest).
func (s *secrets) partSecret(p, text string) secretHit {
	if kind := providerMatch(p); kind != "" {
		return secretHit{kind, p}
	}
	if strings.IndexByte(p, '/') > 0 { // "deploy/ghp_…"
		for _, sub := range strings.Split(p, "/") {
			if kind := providerMatch(sub); kind != "" {
				return secretHit{kind, sub}
			}
		}
	}
	if strings.HasPrefix(p, "eyJ") && strings.Count(p, ".") >= 2 {
		if segs := strings.SplitN(p, ".", 3); len(segs[0]) >= 10 && len(segs[1]) >= 10 {
			return secretHit{"jwt", p}
		}
	}
	for _, seg := range strings.Split(p, ".") {
		switch classifyRandom(seg) {
		case randomText:
			return secretHit{"high-entropy string", seg}
		case randomHex:
			if !s.hexCtx.MatchString(text) {
				return secretHit{"long hex string", seg}
			}
		}
	}
	return secretHit{}
}

func hasAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// luhn checks a card number's check digit, ignoring spaces and dashes.
func luhn(s string) bool {
	sum, n, double := 0, 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
		double = !double
	}
	return n >= 13 && sum%10 == 0
}
