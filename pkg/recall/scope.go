package recall

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// MaxFilePathChars bounds filters.file_path.
const MaxFilePathChars = 1024

// cleanPath normalises a file path to the slash-separated form scope globs
// are written against.
func cleanPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "./")
}

// scopeMatches says whether a memory with scope globs applies to file
// (cleaned): memories without globs apply everywhere. Globs follow
// path.Match with "**" for any number of directories (doublestar), and a
// glob without a slash also matches the base name, as in .gitignore and
// the context assembler, so "*.go" covers "pkg/a/b.go". A malformed glob
// matches nothing.
func scopeMatches(globs []string, file string) bool {
	if len(globs) == 0 {
		return true
	}
	base := path.Base(file)
	blank := true
	for _, g := range globs {
		g = strings.TrimPrefix(strings.TrimSpace(g), "./")
		if g == "" {
			continue
		}
		blank = false
		if ok, err := doublestar.Match(g, file); err == nil && ok {
			return true
		}
		if !strings.Contains(g, "/") {
			if ok, err := doublestar.Match(g, base); err == nil && ok {
				return true
			}
		}
	}
	return blank
}
