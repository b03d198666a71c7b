// Package scope matches a memory's scope globs against the file an agent
// is working on: one rule for recall's file-path filter and for the
// context assembler's scoped layers.
package scope

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Fit says how a memory's scope globs relate to a file.
type Fit int

const (
	Out     Fit = iota // scoped elsewhere
	Neutral            // no file given, or the memory has no (non-blank) glob
	Match              // a glob matches the file
)

// Clean normalises a file path to the slash-separated, relative-or-absolute
// form globs are written against ("./a\b.go" → "a/b.go").
func Clean(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "./")
}

// FitOf matches globs against file (already cleaned) with path.Match
// semantics extended by "**" for any number of directories (doublestar).
// A glob without a slash also matches the base name, as in .gitignore, so
// "*.go" covers "pkg/a/b.go". A malformed glob matches nothing.
func FitOf(globs []string, file string) Fit {
	if file == "" {
		return Neutral
	}
	base := path.Base(file)
	fit := Neutral
	for _, g := range globs {
		g = strings.TrimPrefix(strings.TrimSpace(g), "./")
		if g == "" {
			continue
		}
		fit = Out
		if ok, err := doublestar.Match(g, file); err == nil && ok {
			return Match
		}
		if !strings.Contains(g, "/") {
			if ok, err := doublestar.Match(g, base); err == nil && ok {
				return Match
			}
		}
	}
	return fit
}

// Applies reports whether a memory with these globs applies to file: it
// matches, or it is not scoped.
func Applies(globs []string, file string) bool { return FitOf(globs, file) != Out }
