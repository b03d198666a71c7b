package samefact

import (
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func mem(content string) memory.Memory {
	return memory.Memory{Namespace: "default", Subject: "alice", Content: content}
}

func keyed(key, content string) memory.Memory {
	m := mem(content)
	m.Key = key
	return m
}

// TestCompare is the decision table: every pair an old memory and a new
// fact, the verdict, and a word the reason must contain.
func TestCompare(t *testing.T) {
	tests := []struct {
		name     string
		old, new memory.Memory
		want     Verdict
		reason   string
	}{
		// Pairs that must fold: the same statement, however written.
		{"identical", mem("User prefers tabs over spaces."), mem("User prefers tabs over spaces."), Same, ""},
		{"paraphrase", mem("User prefers tabs over spaces."), mem("Tabs are preferred to spaces by the user."), Same, ""},
		{"case and punctuation", mem("The user prefers Vim."), mem("the user prefers vim!!"), Same, ""},
		{"capitalised word at a sentence start", mem("User prefers dark mode in the editor."), mem("Dark mode is what the user prefers in the editor."), Same, ""},
		{"a sentence-start word is a word too", mem("The developer prefers tabs."), mem("User prefers tabs."), Reworded, "developer vs user"},
		{"number word", mem("The team runs three servers."), mem("The team runs 3 servers."), Same, ""},
		{"percent written out", mem("The coverage target is 65%."), mem("The coverage target is 65 percent."), Same, ""},
		{"money written out", mem("The plan costs $40 a month."), mem("The plan costs 40 dollars a month."), Same, ""},
		{"thousands separator", mem("The quota is 10,000 requests."), mem("The quota is 10000 requests."), Same, ""},
		{"time of day", mem("Standup is at 3 pm."), mem("Standup is at 15:00."), Same, ""},
		{"date formats", mem("The release is on May 5, 2024."), mem("The release is on 2024-05-05."), Same, ""},
		{"day before month", mem("The release is on the 5th of May."), mem("The release is on May 5."), Same, ""},
		{"weekday plural", mem("Deploys happen on Fridays."), mem("Deploys happen on Friday."), Same, ""},
		{"version prefix", mem("Deploy version v1.2.3 of the api."), mem("Deploy version 1.2.3 of the api."), Same, ""},
		{"both negated", mem("The user does not like tea."), mem("The user doesn't like tea."), Same, ""},
		{"url trailing slash", mem("Docs live at https://example.com/docs/."), mem("The docs live at https://example.com/docs"), Same, ""},
		{"same path", mem("Config is in /etc/app/config.yaml"), mem("The config is in /etc/app/config.yaml."), Same, ""},
		{"new says less", mem("Uses Postgres 15 and Redis 7."), mem("Uses Postgres 15."), Same, "old also has number 7"},
		{"same key, other spelling", keyed("Editor Choice", "The editor is Vim."), keyed("editor_choice", "The editor is Vim."), Same, ""},
		{"key only in old", keyed("editor", "The editor is Vim."), mem("The editor is Vim."), Same, ""},
		{"the pronoun one", mem("User likes the blue one."), mem("User likes the blue one the most."), Same, ""},

		// Pairs that must not fold.
		{"another project and option", mem("Fact number 12: the user's laptop choice for project P12 is option 7."),
			mem("Fact number 79: the user's laptop choice for project P79 is option 48."), Conflict, "number 12 vs 79"},
		{"postgres 15 vs 16", mem("The service uses Postgres 15."), mem("The service uses Postgres 16."), Conflict, "number 15 vs 16"},
		// The same number twice is two details: neither statement restates
		// the other (they were folded when numbers were compared as sets).
		{"a number said twice", mem("The user asked to remember: service 231 is owned by team 0."),
			mem("The user asked to remember: service 0 is owned by team 0."), Conflict, "number 231 vs 0"},
		{"a number said twice, other way", mem("The user asked to remember: service 0 is owned by team 0."),
			mem("The user asked to remember: service 231 is owned by team 0."), Conflict, "number 0 vs 231"},
		{"friday vs monday", mem("The team deploys on Friday."), mem("The team deploys on Monday."), Conflict, "date Friday vs Monday"},
		{"likes vs does not like", mem("The user likes tea."), mem("The user does not like tea."), Conflict, `negation: "not" only in new`},
		{"n't", mem("The user doesn't drink coffee."), mem("The user drinks coffee."), Conflict, `"doesn't" only in old`},
		{"no longer", mem("The user uses Java at work."), mem("The user no longer uses Java at work."), Conflict, "no longer"},
		{"always vs never", mem("Always run the tests before committing."), mem("Never run the tests before committing."), Conflict, "never"},
		{"editor vim vs helix", mem("My editor is Vim."), mem("My editor is Helix."), Conflict, "name Vim vs Helix"},
		{"names at sentence starts", mem("Vim is the editor the user prefers for Go code."), mem("Helix is the editor the user prefers for Go code."), Conflict, "name Vim vs Helix"},
		{"same text, different keys", keyed("editor", "Uses Vim."), keyed("shell-editor", "Uses Vim."), Different, "key editor vs shell-editor"},
		{"same key, different value", keyed("editor", "The user's editor is Vim."), keyed("editor", "The user's editor is Helix."), Conflict, "name Vim vs Helix"},
		{"other subject", mem("Uses Vim."), memory.Memory{Namespace: "default", Subject: "bob", Content: "Uses Vim."}, Different, "subject alice vs bob"},
		{"other namespace", mem("Uses Vim."), memory.Memory{Namespace: "work", Subject: "alice", Content: "Uses Vim."}, Different, "namespace"},
		{"day of month", mem("The release is on May 5."), mem("The release is on May 6."), Conflict, "date May 5 vs May 6"},
		{"iso dates", mem("The audit was on 2024-05-05."), mem("The audit was on 2024-06-05."), Conflict, "date"},
		{"years", mem("The user moved to Berlin in 2019."), mem("The user moved to Berlin in 2021."), Conflict, "date 2019 vs 2021"},
		{"times", mem("Standup is at 3pm."), mem("Standup is at 4pm."), Conflict, "date 3pm vs 4pm"},
		{"today vs tomorrow", mem("The backup runs today."), mem("The backup runs tomorrow."), Conflict, "date"},
		{"daily vs weekly", mem("The backup runs daily."), mem("The backup runs weekly."), Conflict, "date daily vs weekly"},
		{"percentages", mem("Coverage must stay above 65%."), mem("Coverage must stay above 78%."), Conflict, "number 65% vs 78%"},
		{"money", mem("The plan costs $40 a month."), mem("The plan costs $50 a month."), Conflict, "number $40 vs $50"},
		{"versions", mem("Pin the client to 1.2.3."), mem("Pin the client to 1.2.4."), Conflict, "number 1.2.3 vs 1.2.4"},
		{"number words", mem("The team runs three servers."), mem("The team runs four servers."), Conflict, "number three vs four"},
		{"urls", mem("Docs live at https://a.example.com/docs."), mem("Docs live at https://b.example.com/docs."), Conflict, "name"},
		{"paths", mem("The config is in /etc/app/a.yaml."), mem("The config is in /etc/app/b.yaml."), Conflict, "name /etc/app/a.yaml vs /etc/app/b.yaml"},
		{"emails", mem("Send reports to bob@acme.io."), mem("Send reports to alice@acme.io."), Conflict, "name"},
		{"identifiers", mem("Tune `maxRetries` in the client."), mem("Tune `maxTimeout` in the client."), Conflict, "maxRetries"},
		{"quoted strings", mem(`Greet the user with "hello there".`), mem(`Greet the user with "hello world".`), Conflict, "hello"},
		{"order", mem("The user switched from Vim to Helix."), mem("The user switched from Helix to Vim."), Conflict, "order of"},
		{"relation the other way round", mem("The user prefers tabs over spaces."), mem("The user prefers spaces over tabs."), Conflict, `order: tabs and spaces change sides of "over"`},
		{"rather than, the other way round", mem("The user drinks tea rather than coffee."), mem("The user drinks coffee rather than tea."), Conflict, "order"},
		{"better than, the other way round", mem("For the user, tea is better than coffee."), mem("For the user, coffee is better than tea."), Conflict, "order"},
		{"a passive keeps the sides", mem("The user prefers tabs over spaces."), mem("Tabs are preferred over spaces by the user."), Same, ""},
		{"from and to, the other way round", mem("The team moved the api from heroku to fly."), mem("The team moved the api from fly to heroku."), Conflict, "order"},
		{"another lowercase thing", mem("The user drinks green tea every morning before work."), mem("The user drinks green coffee every morning before work."), Reworded, "wording: tea vs coffee"},
		{"lowercase languages", mem("The frontend is written in typescript with react."), mem("The frontend is written in javascript with react."), Reworded, "typescript vs javascript"},
		{"synonyms are for the llm", mem("The user prefers dark mode in every editor."), mem("The user likes dark mode in every editor."), Reworded, "prefers vs likes"},
		{"richer: a word", mem("The user prefers tabs over spaces."), mem("The user strongly prefers tabs over spaces."), Richer, "new adds strongly"},
		{"new drops a word", mem("The user strongly prefers tabs over spaces."), mem("The user prefers tabs over spaces."), Same, "old also has strongly"},
		{"richer: a name", mem("User prefers dark mode in the editor."), mem("User prefers dark mode in the editor with the Solarized theme."), Richer, "new adds name Solarized"},
		{"richer: a number", mem("The service uses Postgres."), mem("The service uses Postgres 15."), Richer, "new adds number 15"},
		{"richer: different sorts", mem("User prefers the Solarized theme (since 2024)."), mem("User prefers the Solarized theme at 14pt."), Richer, "14pt"},
		{"richer: a key", mem("The editor is Vim."), keyed("editor", "The editor is Vim."), Richer, "key editor only in new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.old, tt.new)
			if got.Verdict != tt.want || !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("Compare = %s (%s), want %s with a reason containing %q", got.Verdict, got.Reason, tt.want, tt.reason)
			}
			if got.Folds() != (tt.want == Same) || got.Mergeable() != (tt.want == Same || tt.want == Richer || tt.want == Reworded) {
				t.Fatalf("Folds %v Mergeable %v for %s", got.Folds(), got.Mergeable(), got.Verdict)
			}
		})
	}
}

// TestCompareDetails: details only, whatever the wording, for a statement
// rewritten from others (an LLM merge).
func TestCompareDetails(t *testing.T) {
	tests := []struct {
		merged, part string
		want         Verdict
	}{
		{"The user likes dark mode, with the Solarized theme.", "The user prefers dark mode.", Same},
		{"The user likes dark mode.", "The user prefers dark mode with the Solarized theme.", Richer},
		{"The service runs Postgres 16.", "The service uses Postgres 15.", Conflict},
		{"The user prefers spaces over tabs.", "The user prefers tabs over spaces.", Conflict},
		{"The user avoids tea.", "The user does not drink tea.", Conflict},
	}
	for _, tt := range tests {
		t.Run(tt.merged+"|"+tt.part, func(t *testing.T) {
			if got := CompareDetails(tt.merged, tt.part); got.Verdict != tt.want {
				t.Fatalf("CompareDetails = %s (%s), want %s", got.Verdict, got.Reason, tt.want)
			}
		})
	}
}
