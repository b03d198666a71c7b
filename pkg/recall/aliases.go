package recall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/recollect-dev/recollect/pkg/alias"
	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Bounds on the alias expansion: alias memories read per query, words added.
const (
	aliasLookup   = 32
	maxAliasTerms = 8
)

// withAliases is the query's lexical text with the subject's aliases
// (pkg/alias) it touches: a name the query says brings its describing
// word ("how is Max doing" → "dog"), a describing word or its class brings
// the names ("her pets' names" → "Max Luna"). One lexical search of the
// alias memories, no model call. The dense channel keeps the query as
// asked.
func (r *Recaller) withAliases(ctx context.Context, req Request, text string) (string, error) {
	if r.cfg.NoAliases || slices.Contains(req.Filters.Tags, alias.Tag) {
		return text, nil
	}
	look := aliasLookupText(text)
	if look == "" {
		return text, nil // names nothing an alias could be: no store call
	}
	f := r.filter(req)
	hits, err := r.store.SearchText(ctx, store.TextQuery{Tenant: req.Tenant, Text: look, K: aliasLookup, Filter: store.Filter{
		Namespaces: f.Namespaces, Subjects: f.Subjects, Types: []memory.Type{memory.TypeEntity}, Tags: []string{alias.Tag},
	}, Scratch: req.scratch})
	if err != nil {
		return "", fmt.Errorf("look up aliases: %w", err)
	}
	extra := aliasTerms(text, hits)
	if len(extra) == 0 {
		return text, nil
	}
	return text + " " + strings.Join(extra, " "), nil
}

// aliasLookupText is what of the query can touch an alias: its
// capitalised words (names) and its describing words ("dog", "pets",
// "sister"); "" when none. Searching only these keeps the lookup to the
// few postings of names and describing words.
func aliasLookupText(query string) string {
	var out []string
	for i, w := range strings.Fields(query) {
		t := strings.TrimSuffix(strings.TrimSuffix(strings.Trim(w, `"'.,;:!?()`), "'s"), "’s")
		t = strings.TrimRight(t, "'’")
		rs := []rune(t)
		switch {
		case len(rs) < 2:
		case unicode.IsUpper(rs[0]) && !(i == 0 && questionWords[strings.ToLower(t)]) && !questionWords[strings.ToLower(t)]:
			out = append(out, t)
		case alias.Describes(strings.ToLower(t)):
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// aliasTerms are the words the aliases among hits add to query: for an
// alias whose name the query says, its word; for one whose word or class
// the query says, its name. Best hits first, each word once, at most
// maxAliasTerms.
func aliasTerms(query string, hits []store.Hit) []string {
	q := map[string]bool{}
	for _, t := range lexical.Terms(query) {
		q[t] = true
	}
	says := func(s string) bool { return lexical.AnyTerm(s, func(t string) bool { return q[t] }) }
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if len(out) < maxAliasTerms && !seen[w] && !says(w) {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, h := range hits {
		a, ok := alias.Parse(memory.NormalizeKey(h.Memory.Key))
		if !ok {
			continue
		}
		name := strings.ReplaceAll(a.Name, "-", " ")
		if strings.Contains(a.Name, "-") && a.Class == "project" {
			name = a.Name
		}
		if says(name) {
			add(a.Word)
		}
		if says(a.Word) || slices.ContainsFunc(alias.ClassTerms(a.Class), says) {
			add(name)
		}
	}
	return out
}
