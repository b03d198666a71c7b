package rules

import (
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// class says what kind of statement a rule recognised; with the content it
// decides the domain (000's complementary domains).
type class uint8

const (
	classAffective class = iota // "I prefer …", "I hate …": how the user likes things
	classDirective              // "always …", "never …", "you must …": instructions
	classHabit                  // "I always …": the user's own routine
	classProfile                // self-disclosure: name, job, location, people
	classStatement              // project facts, third-party rules, corrections
	classDecision               // "we decided to …"
)

// signals is what routing learns from a fact's words.
type signals struct {
	tool       bool     // commands, tools, CLIs, build/test/deploy, code, files
	procedural bool     // ordering words: before, after, first, whenever …
	tools      []string // tool names seen, for tags
	cat        *category
}

// catIndex finds categories by word: one- and two-word phrases map to the
// category's position, the lowest position wins (categories are ordered).
type catIndex map[string]int

func newCatIndex() catIndex {
	idx := catIndex{}
	for i, c := range categories {
		for _, p := range c.phrases {
			if _, ok := idx[p]; !ok {
				idx[p] = i
			}
		}
	}
	return idx
}

// category returns the first category any word or word pair of low names.
func (idx catIndex) category(ws []string) *category {
	best := len(categories)
	for i, raw := range ws {
		w := trimToken(raw)
		if j, ok := idx[w]; ok && j < best {
			best = j
		}
		if i+1 < len(ws) {
			if j, ok := idx[w+" "+trimToken(ws[i+1])]; ok && j < best {
				best = j
			}
		}
	}
	if best == len(categories) {
		return nil
	}
	return &categories[best]
}

// inspect scans lowercased text for tool and procedure signals.
func inspect(low string) signals {
	var s signals
	if strings.IndexByte(low, '`') >= 0 {
		s.tool = true
	}
	ws := words(low)
	skip := false
	weak := 0
	for i, raw := range ws {
		if skip {
			skip = false
			continue
		}
		w := trimToken(normApos(raw))
		if w == "" {
			continue
		}
		if proceduralWords[w] {
			s.procedural = true
		}
		switch {
		case toolWords[w]:
			s.addTool(w)
		case i+1 < len(ws) && toolBigrams[w+" "+trimToken(ws[i+1])]:
			s.addTool(w + " " + trimToken(ws[i+1]))
			skip = true
		case isFileName(raw), isFlag(raw), isPath(raw):
			s.tool = true
		case weakToolWords[w] && !(w == "make" && i+1 < len(ws) && notMakeTarget[trimToken(ws[i+1])]):
			weak++
		}
	}
	if weak >= 2 || weak == 1 && s.tool {
		s.tool = true
		for i, raw := range ws {
			if w := trimToken(raw); weakToolWords[w] && !(w == "make" && i+1 < len(ws) && notMakeTarget[trimToken(ws[i+1])]) &&
				w != "main" && w != "master" && w != "code" && w != "locally" && w != "server" {
				s.addTool(w)
			}
		}
	}
	return s
}

func (s *signals) addTool(name string) {
	s.tool = true
	if len(s.tools) < 4 && !contains(s.tools, name) {
		s.tools = append(s.tools, name)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// isFileName: "main.go", "*.py", "package.json", ".env".
func isFileName(t string) bool {
	t = strings.TrimRight(t, ".,")
	dot := strings.LastIndexByte(t, '.')
	if dot < 0 || dot == len(t)-1 {
		return false
	}
	return fileExts[t[dot+1:]] && (dot == 0 || t[dot-1] != '.')
}

// isFlag: "--force", "-rf".
func isFlag(t string) bool {
	if strings.HasPrefix(t, "--") {
		return len(t) > 3 && t[2] >= 'a' && t[2] <= 'z'
	}
	return len(t) >= 2 && len(t) <= 4 && t[0] == '-' && t[1] >= 'a' && t[1] <= 'z'
}

// isPath: "./scripts", "~/bin", "/etc/hosts", "cmd/server/main.go".
func isPath(t string) bool {
	switch {
	case strings.HasPrefix(t, "./"), strings.HasPrefix(t, "~/"), strings.HasPrefix(t, "../"):
		return len(t) > 2
	case strings.HasPrefix(t, "/"):
		return len(t) > 2 && strings.Count(t, "/") >= 2
	}
	return strings.Count(t, "/") >= 2 && !strings.Contains(t, "//")
}

// domainFor routes a fact: style topics stay with the user's preferences,
// tools and procedures go to tool-usage, facts about the world to general.
func domainFor(c class, s signals) string {
	switch c {
	case classProfile, classDecision:
		return memory.DomainGeneral
	case classAffective:
		return memory.DomainUserPreferences
	}
	if s.cat != nil && s.cat.style {
		return memory.DomainUserPreferences
	}
	if s.tool {
		return memory.DomainToolUsage
	}
	if c == classStatement {
		return memory.DomainGeneral
	}
	return memory.DomainUserPreferences
}

// typeFor upgrades an instruction about tools with an order to it into a
// workflow ("always run make test before committing").
func typeFor(t memory.Type, c class, s signals, conditional bool) memory.Type {
	if t == memory.TypePreference && (c == classDirective || c == classHabit) && s.tool &&
		(s.procedural || conditional) && (s.cat == nil || !s.cat.style) {
		return memory.TypeWorkflow
	}
	return t
}
