package config

import (
	"net/url"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// secretWords mark flags whose whole value is a secret.
var secretWords = []string{"key", "secret", "password", "token"}

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
// inside URLs and DSNs.
func Redact(name, value string) string {
	if value == "" || value == "[]" {
		return value
	}
	lower := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(lower, w) {
			return "<redacted>"
		}
	}
	if u, err := url.Parse(value); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "redacted")
			value = u.String()
		}
	}
	if u, err := url.Parse(value); err == nil && u.Query().Has("password") {
		q := u.Query()
		q.Set("password", "redacted")
		u.RawQuery = q.Encode()
		value = u.String()
	}
	return value
}
