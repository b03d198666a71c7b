package filter

import (
	"strings"
)

// descriptive are words that describe a credential rather than give it:
// "the password is required", "the token is short-lived".
var descriptive = setOf("required", "optional", "needed", "mandatory", "missing", "empty", "blank",
	"null", "nil", "none", "unset", "set", "invalid", "valid", "expired", "expiring", "correct",
	"incorrect", "wrong", "right", "same", "different", "new", "old", "long", "short", "strong",
	"weak", "secure", "insecure", "secret", "private", "public", "sensitive", "hashed", "encrypted",
	"rotated", "random", "randomly", "temporary", "permanent", "shared", "personal", "unique",
	"stored", "kept", "managed", "saved", "located", "available", "unavailable", "generated",
	"configured", "defined", "specified", "documented", "provided", "injected", "loaded", "passed",
	"sent", "given", "written", "read", "listed", "handled", "mine", "yours", "his", "hers",
	"theirs", "ours", "something", "anything", "nothing", "whatever", "unknown", "ok", "fine",
	"good", "bad", "jwt", "jwts", "uuid", "opaque", "base64", "hex", "string", "number", "bearer",
	"changed", "reset", "revoked", "disabled", "enabled", "active", "inactive", "static", "dynamic",
	"per", "case-sensitive", "specific", "scoped", "separate", "too", "very", "also", "still",
	"usually", "always", "never", "only", "not", "n/a", "tbd", "todo", "here", "there", "below",
	"above", "attached", "included", "needed.", "rotating", "expires", "lost", "forgotten", "leaked",
	"compromised", "exposed", "weak.", "easy", "hard", "simple", "complex", "complicated", "in",
	"on", "at", "from", "for", "with", "by", "a", "an", "the", "my", "our", "your", "their", "its",
	"this", "that", "these", "those", "what", "which", "where", "how", "who", "why", "when", "if",
	"and", "or", "but", "so", "as", "of", "to", "into", "under", "behind", "like", "about", "over",
	"now", "then", "being", "been", "be", "is", "are", "was", "were", "will", "would", "should",
	"can", "could", "must", "may", "might", "has", "have", "had", "do", "does", "did", "it", "you",
	"we", "they", "he", "she", "i", "me", "us", "them", "placeholder", "example", "redacted",
	"hidden", "masked", "sample", "dummy", "fake", "test", "value", "variable", "field", "prompt",
	"parameter", "argument", "header", "cookie", "file", "env", "environment", "vault", "1password",
	"bitwarden", "keychain", "lastpass", "keepass", "manager", "rotation")

// credentialValue decides whether v, named by keyword kw, is an actual
// credential. next is the word after it, if any.
func credentialValue(kw, v, next string) bool {
	v = trimValue(v)
	if v == "" || placeholder(v) {
		return false
	}
	low := strings.ToLower(v)
	if descriptive[low] {
		return false
	}
	if numericOnly(kw) && digits(v) < len(v)-1 {
		return false // a "pin" that is not a number is a lapel pin
	}
	if n := digits(v); n == len(v) {
		// A number followed by a word is a quantity ("12 characters").
		need := 8
		if pinLike(kw) {
			need = 4
		}
		return len(v) >= need && next == ""
	}
	if isEnvName(v) {
		return false // the name of where it lives: OPENAI_API_KEY
	}
	if i := strings.LastIndexByte(low, '-'); i >= 0 && descriptive[low[i+1:]] || hasDescriptiveSuffix(low) {
		return false // "short-lived", "project-scoped"
	}
	if !pinLike(kw) && isWord(v) {
		return false // "the secret to good bread is patience": keys and tokens are not words
	}
	return len(v) >= 3
}

// trimValue strips the quotes and punctuation around a credential's value.
func trimValue(v string) string { return strings.Trim(v, "\"'`.,;:!?()[]{}<>") }

// isWord: letters only, lowercase or capitalised.
func isWord(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || i == 0 && c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// numericOnly keywords name numeric codes; otherwise they are ordinary words.
func numericOnly(kw string) bool {
	return strings.HasPrefix(kw, "pin") || kw == "otp" || kw == "2fa code"
}

// pinLike keywords name things people choose, so a plain word or a short
// number can be the value: "my password is sunshine", "PIN is 4821".
func pinLike(kw string) bool {
	return hasAny(kw, "pin", "passcode", "otp", "2fa", "code", "password", "passwd", "pwd", "passphrase",
		"seed", "mnemonic", "recovery")
}

// hasDescriptiveSuffix: lowercase adjectives and participles ("rotated",
// "expiring", "reusable") describe; they are rarely the password itself.
func hasDescriptiveSuffix(low string) bool {
	for i := 0; i < len(low); i++ {
		if c := low[i]; c < 'a' || c > 'z' {
			if c != '-' {
				return false
			}
		}
	}
	for _, suf := range []string{"ed", "ing", "ly", "able", "ible", "ful", "less", "ous", "ive"} {
		if len(low) > len(suf)+2 && strings.HasSuffix(low, suf) {
			return true
		}
	}
	return false
}

// placeholder: a stand-in, not a value ("${DB_PASS}", "<token>", "****").
func placeholder(v string) bool {
	switch {
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "<"), strings.HasPrefix(v, "{"), strings.HasPrefix(v, "%"):
		return true
	case strings.Trim(v, "*xX.•…#-_") == "":
		return true
	}
	low := strings.ToLower(v)
	return strings.HasPrefix(low, "your") || strings.HasPrefix(low, "my-") || strings.HasPrefix(low, "my_") ||
		strings.Contains(low, "redacted") || strings.Contains(low, "placeholder") || strings.Contains(low, "example") ||
		low == "password" || low == "pass" || low == "passwd" || low == "pwd" || low == "secret" || low == "token" ||
		low == "apikey" || low == "api-key" || low == "api_key" || low == "xxx" || low == "changeit"
}

// isEnvName: an environment variable name (upper case with an underscore).
func isEnvName(v string) bool {
	under := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '_':
			under = true
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return under
}

// urlSecret finds a password in a URL's user info ("postgres://app:s3cret@db"),
// a credential in its query ("?api_key=…"), or a webhook URL whose path is
// the secret.
func urlSecret(tok string) secretHit {
	i := strings.Index(tok, "://")
	rest := tok[i+3:]
	auth := rest
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		auth = rest[:j]
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		if c := strings.IndexByte(auth[:at], ':'); c >= 0 && !placeholder(auth[c+1:at]) && auth[c+1:at] != "" {
			return secretHit{"password in a connection string", auth[c+1 : at]}
		}
	}
	low := strings.ToLower(rest)
	if strings.HasPrefix(low, "hooks.slack.com/services/") || strings.Contains(low, "discord.com/api/webhooks/") ||
		strings.Contains(low, "discordapp.com/api/webhooks/") {
		return secretHit{"webhook url", rest[strings.IndexByte(rest, '/')+1:]}
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return secretHit{}
	}
	for _, kv := range strings.Split(rest[q+1:], "&") {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		name = strings.ToLower(name)
		val = strings.TrimRight(val, ".,)")
		if hasAny(name, "key", "token", "secret", "password", "passwd", "pwd", "sig", "signature", "auth", "credential") &&
			len(val) >= 8 && !placeholder(val) {
			return secretHit{"credential in a url", val}
		}
	}
	return secretHit{}
}
