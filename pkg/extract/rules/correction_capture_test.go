package rules

import (
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/correction"
)

// Corrections are captured with their marker, and what is captured reads
// back as a correction naming what it replaces (issue 19 item 3).
func TestCaptureCorrections(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		in, rule, content string
		old               []string
	}{
		{"Actually the staging DB is Postgres 15, not MySQL.", RuleCorrection, "Actually, the staging DB is Postgres 15, not MySQL.", []string{"MySQL"}},
		{"No, it's port 8443 for the admin API.", RuleCorrection, "Actually, it's port 8443 for the admin API.", nil},
		{"The build server is no longer Jenkins.", RuleNoLonger, "The build server is no longer Jenkins.", []string{"Jenkins"}},
		{"We moved from Jenkins to GitHub Actions.", RuleMovedFrom, "The team moved from Jenkins to GitHub Actions.", []string{"Jenkins"}},
		{"We migrated ledger-api from SQLite to PostgreSQL 14 over the weekend.", RuleMovedFrom, "The team migrated ledger-api from SQLite to PostgreSQL 14 over the weekend.", []string{"SQLite"}},
		{"I switched from Neovim to Helix last weekend.", RuleMovedFrom, "User switched from Neovim to Helix last weekend.", []string{"Neovim"}},
		{"Actually, the deadline is Friday the 12th.", RuleCorrection, "Actually, the deadline is Friday the 12th.", nil},
	} {
		fs := c.Capture("user", tc.in)
		if len(fs) != 1 {
			t.Errorf("%q: %d facts %+v", tc.in, len(fs), fs)
			continue
		}
		f := fs[0]
		if f.Rule != tc.rule || f.Content != tc.content {
			t.Errorf("%q: [%s] %q, want [%s] %q", tc.in, f.Rule, f.Content, tc.rule, tc.content)
		}
		if f.Importance < CorrectionImportance && strings.HasPrefix(f.Rule, "correction.") {
			t.Errorf("%q: importance %.2f", tc.in, f.Importance)
		}
		corr, ok := correction.Parse(f.Content)
		if !ok {
			t.Errorf("%q: captured %q is not read back as a correction", tc.in, f.Content)
			continue
		}
		if strings.Join(corr.Old, "|") != strings.Join(tc.old, "|") {
			t.Errorf("%q: old %q, want %q", tc.in, corr.Old, tc.old)
		}
	}
}
