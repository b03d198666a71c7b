package config

import (
	"net/url"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// secretWords are the words of a flag name (split at '-') that make its
// whole value a secret: "llm-api-key", "api-keys", "redis-password". A
// plural such as "tokens" names a count ("extractor-max-tokens"), not a
// secret, and a name ending in a word of pathWords holds where the secret
// lives ("api-keys-file"), which is printed.
var secretWords = map[string]bool{
	"key": true, "keys": true, "secret": true, "secrets": true, "password": true,
	"passwd": true, "token": true, "credential": true, "credentials": true,
}

var pathWords = map[string]bool{"file": true, "path": true, "dir": true}

// queryWords mark a URL query parameter as a secret when its name contains
// one of them: ?key=, ?api_key=, ?password=, ?access_token=, ?sig=.
var queryWords = []string{"key", "secret", "password", "passwd", "token", "sig", "auth", "credential"}

// Setting is one effective setting as printed by `recollect config`.
type Setting struct {
	Name   string `json:"name" yaml:"name"`
	Env    string `json:"env" yaml:"env"`
	Value  string `json:"value" yaml:"value"`
	Source string `json:"source" yaml:"source"` // flag | default | env/file
}

// Effective lists every flag with its value, secrets redacted.
func Effective(fs *pflag.FlagSet) []Setting {
	var out []Setting
	fs.VisitAll(func(f *pflag.Flag) {
		src := "default"
		if f.Changed {
			src = "set"
		}
		out = append(out, Setting{Name: f.Name, Env: EnvName(f.Name), Value: Redact(f.Name, f.Value.String()), Source: src})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Redact hides secrets: whole values of secret-named flags, and passwords
// and secret query parameters inside URLs and DSNs (each element of a list
// value on its own).
func Redact(name, value string) string {
	if value == "" || value == "[]" {
		return value
	}
	if secretName(name) {
		return "<redacted>"
	}
	if strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]") {
		parts := strings.Split(value[1:len(value)-1], ",")
		for i, p := range parts {
			parts[i] = redactURL(p)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return redactURL(value)
}

// secretName reports whether a flag's whole value is a secret.
func secretName(name string) bool {
	words := strings.Split(strings.ToLower(name), "-")
	if pathWords[words[len(words)-1]] {
		return false
	}
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// redactURL replaces a URL's password and the values of its secret query
// parameters with "redacted", keeping everything else as written. A value
// that is not a URL with a scheme is returned unchanged.
func redactURL(value string) string {
	u, err := url.Parse(value)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return value
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "redacted")
			changed = true
		}
	}
	if u.RawQuery != "" {
		pairs := strings.Split(u.RawQuery, "&")
		for i, p := range pairs {
			k, _, ok := strings.Cut(p, "=")
			if !ok {
				continue
			}
			name, err := url.QueryUnescape(k)
			if err != nil {
				name = k
			}
			if secretParam(name) {
				pairs[i] = k + "=redacted"
				changed = true
			}
		}
		u.RawQuery = strings.Join(pairs, "&")
	}
	if !changed {
		return value
	}
	return u.String()
}

func secretParam(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range queryWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
