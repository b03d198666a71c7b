package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in        string
		ok        bool
		subj, new string
		old       []string
	}{
		{"Actually the staging DB is Postgres 15, not MySQL.", true, "staging DB", "Postgres 15", []string{"MySQL"}},
		{"Actually, the deadline is Friday the 12th.", true, "deadline", "Friday the 12th", nil},
		{"The build server is no longer Jenkins.", true, "build server", "", []string{"Jenkins"}},
		{"The team moved from Jenkins to GitHub Actions.", true, "", "GitHub Actions", []string{"Jenkins"}},
		{"We switched from Travis to GitHub Actions for CI.", true, "CI", "GitHub Actions", []string{"Travis"}},
		{"We migrated ledger-api from SQLite to PostgreSQL 14 over the weekend.", true, "ledger-api", "PostgreSQL 14", []string{"SQLite"}},
		{"Actually, it's port 8443 for the admin API.", true, "admin API", "port 8443", nil},
		{"Actually, use pnpm instead of npm.", true, "", "pnpm", []string{"npm"}},
		{"I'm replacing httpx with aiohttp for outgoing HTTP calls in recipe-bot.", true, "outgoing HTTP calls in recipe-bot", "aiohttp", []string{"httpx"}},
		{"The staging DB is MySQL 8.", false, "", "", nil},
		{"I prefer tabs over spaces.", false, "", "", nil},
		{"No worries, see you tomorrow.", false, "", "", nil},
	} {
		c, ok := Parse(tc.in)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v (%+v)", tc.in, ok, tc.ok, c)
			continue
		}
		if !ok {
			continue
		}
		if c.Subject != tc.subj || c.New != tc.new || !slices.Equal(c.Old, tc.old) {
			t.Errorf("%q: subject %q new %q old %q, want %q %q %q", tc.in, c.Subject, c.New, c.Old, tc.subj, tc.new, tc.old)
		}
	}
}

// Pairs that must and must not supersede: the correction's own entities
// decide, not how alike the sentences are.
func TestContradicts(t *testing.T) {
	for _, tc := range []struct {
		correction, older string
		want              bool
	}{
		{"Actually the staging DB is Postgres 15, not MySQL.", "The staging DB is MySQL 8.", true},
		{"Actually the staging DB is Postgres 15, not MySQL.", "The staging database runs MySQL 8.0.", true},
		{"Actually the staging DB is Postgres 15, not MySQL.", "The production DB is MySQL 8.", false},
		{"Actually the staging DB is Postgres 15, not MySQL.", "The staging DB is reset every night.", false},
		{"Actually the staging DB is Postgres 15, not MySQL.", "The staging DB is Postgres 15.", false},
		{"Actually the staging DB is Postgres 15, not MySQL.", "User prefers MySQL Workbench for the production database.", false},
		{"The build server is no longer Jenkins.", "The build server is Jenkins.", true},
		{"The build server is no longer Jenkins.", "We use Jenkins for the nightly jobs.", false},
		{"The team moved from Jenkins to GitHub Actions.", "CI runs on Jenkins.", true},
		{"The team moved from Jenkins to GitHub Actions.", "CI runs on GitHub Actions and Jenkins.", false},
		{"The team moved from Jenkins to GitHub Actions.", "The deploys go through Argo CD.", false},
		{"We migrated ledger-api from SQLite to PostgreSQL 14 over the weekend.", "ledger-api keeps its data in SQLite.", true},
		{"We migrated ledger-api from SQLite to PostgreSQL 14 over the weekend.", "photo-tagger keeps its data in SQLite.", false},
		{"Actually, it's port 8443 for the admin API.", "The admin API listens on port 8080.", true},
		{"Actually, it's port 8443 for the admin API.", "The public API listens on port 8080.", false},
		{"Actually, it's port 8443 for the admin API.", "The admin API is written in Go.", false},
		{"Actually, the deadline is Friday the 12th.", "The deadline is Monday the 8th.", true},
		{"Actually, the deadline is Friday the 12th.", "The deadline for the report is Monday.", false},
		{"Actually, the deadline is Friday the 12th.", "The demo is on Monday.", false},
		{"Actually, use pnpm instead of npm.", "Use npm for installs.", true},
		{"Actually, use pnpm instead of npm.", "Use yarn for installs.", false},
	} {
		c, ok := Parse(tc.correction)
		if !ok {
			t.Fatalf("%q is not read as a correction", tc.correction)
		}
		if got, why := c.Contradicts(tc.older); got != tc.want {
			t.Errorf("%q vs %q: %v (%s), want %v", tc.correction, tc.older, got, why, tc.want)
		}
		if tc.want && !c.Mentioned(strings.ToLower(tc.older)) {
			t.Errorf("%q vs %q: the first test misses a pair that contradicts", tc.correction, tc.older)
		}
	}
}

func TestContradictsWithoutOldValue(t *testing.T) {
	c, ok := Parse("Actually, the staging DB is Postgres 15.")
	if !ok {
		t.Fatal("not a correction")
	}
	if got, _ := c.Contradicts("The staging DB is MySQL 8."); !got {
		t.Error("the same subject's other value is not replaced")
	}
	if got, _ := c.Contradicts("The staging DB password rotates monthly."); got {
		t.Error("another attribute of the subject is replaced")
	}
}

func TestContradictsScope(t *testing.T) {
	c, _ := Parse("I'm replacing httpx with aiohttp for outgoing HTTP calls in recipe-bot.")
	if got, _ := c.Contradicts("Decision: httpx handles outgoing HTTP calls in recipe-bot."); !got {
		t.Error("the replaced library is still current")
	}
	if got, _ := c.Contradicts("Decision: httpx handles outgoing HTTP calls in billing-worker."); got {
		t.Error("another project's library was replaced")
	}
}
