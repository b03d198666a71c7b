package promptctx

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// scopeFit says how a memory's scope globs relate to the file in hand.
type scopeFit int

const (
	scopeOut     scopeFit = iota // scoped elsewhere: left out
	scopeNeutral                 // no file given, or the memory has no scope
	scopeMatch                   // a glob matches the file: ranks higher
)

// cleanPath normalises a request's file path to the slash-separated,
// relative-or-absolute form globs are written against.
func cleanPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "./")
}

// fitScope matches globs against file (already cleaned) with path.Match
// semantics extended by "**" for any number of directories (doublestar).
// A glob without a slash also matches the base name, as in .gitignore, so
// "*.go" covers "pkg/a/b.go". A malformed glob matches nothing.
func fitScope(globs []string, file string) scopeFit {
	if file == "" || len(globs) == 0 {
		return scopeNeutral
	}
	base := path.Base(file)
	for _, g := range globs {
		g = strings.TrimPrefix(strings.TrimSpace(g), "./")
		if g == "" {
			continue
		}
		if ok, err := doublestar.Match(g, file); err == nil && ok {
			return scopeMatch
		}
		if !strings.Contains(g, "/") {
			if ok, err := doublestar.Match(g, base); err == nil && ok {
				return scopeMatch
			}
		}
	}
	return scopeOut
}
