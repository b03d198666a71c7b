package filter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// maxBenignFlagged is the share of the benign corpus that may be
// quarantined or redacted.
const maxBenignFlagged = 0.005

// benignMessages reads testdata/benign: messages separated by lines that
// are exactly "%%%%", comment lines ("#!") before the first.
func benignMessages(t testing.TB) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "benign", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("benign corpus: %v (%d files)", err, len(paths))
	}
	out := map[string][]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for l := range strings.Lines(string(data)) {
			if len(lines) == 0 && strings.HasPrefix(l, "#!") {
				continue
			}
			lines = append(lines, l)
		}
		for _, m := range strings.Split(strings.Join(lines, ""), "%%%%\n") {
			if m = strings.TrimRight(m, "\n"); strings.TrimSpace(m) != "" {
				out[filepath.Base(p)] = append(out[filepath.Base(p)], m)
			}
		}
	}
	return out
}

// TestBenignCorpus: ordinary code, markup, shell, configuration, prose and
// transcripts are stored untouched (at most 0.5% quarantined or redacted),
// and the stored text is the text given, lines and all.
func TestBenignCorpus(t *testing.T) {
	f := New(WithMaxContentChars(8192))
	total, flagged := 0, 0
	for file, msgs := range benignMessages(t) {
		for i, m := range msgs {
			total++
			// As the door hands it on (memory.MemoryInput's normalisation).
			m = memory.CleanText(m)
			st := f.CheckStated(Candidate{Content: m})
			if st.Verdict != VerdictAccept {
				flagged++
				t.Logf("%s #%d: %s (quarantine %q, redacted %v):\n%s", file, i+1, st.Verdict, st.Quarantine, st.Redacted, m)
				continue
			}
			if st.Content != m {
				t.Errorf("%s #%d: stored text changed:\n got %q\nwant %q", file, i+1, st.Content, m)
			}
		}
	}
	if total < 300 {
		t.Fatalf("benign corpus has %d messages, want at least 300", total)
	}
	rate := float64(flagged) / float64(total)
	t.Logf("benign corpus: %d messages, %d quarantined or redacted (%.2f%%)", total, flagged, 100*rate)
	if rate > maxBenignFlagged {
		t.Fatalf("%d of %d benign messages (%.2f%%) quarantined or redacted, more than %.1f%%", flagged, total, 100*rate, 100*maxBenignFlagged)
	}
}

// TestStatedAttacks: every injection and secret case of the check table,
// stored explicitly, is caught: injections are quarantined, secrets are
// redacted so that no detector finds one in what is stored; and what the
// table accepts is stored as it is.
func TestStatedAttacks(t *testing.T) {
	f := New(WithMaxContentChars(8192))
	attacks, caught := 0, 0
	for _, tc := range checkCases {
		c := Candidate{Content: tc.content}
		if tc.name == "secret in key" {
			c.Key = "deploy/ghp_aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4y"
		}
		st := f.CheckStated(c)
		switch tc.want {
		case ReasonInjection:
			attacks++
			if st.Verdict == VerdictQuarantine && st.Quarantine != "" {
				caught++
			} else {
				t.Errorf("%s: %s, want quarantine: %q", tc.name, st.Verdict, tc.content)
			}
		case ReasonSecret:
			attacks++
			p := f.probe(clean(st.Content).text, st.Content)
			kp := f.probe(clean(st.Key).text, st.Key)
			marked := strings.Contains(st.Content, "[redacted:") || c.Key != "" && st.Key == ""
			if st.Verdict == VerdictRedact && len(st.Redacted) > 0 && f.sec.find(&p) == "" && f.sec.find(&kp) == "" && marked {
				caught++
			} else {
				t.Errorf("%s: %s %v, stored %q key %q", tc.name, st.Verdict, st.Redacted, st.Content, st.Key)
			}
		case "":
			if st.Verdict != VerdictAccept || st.Content != tc.content {
				t.Errorf("%s: %s (%q), stored %q, want it as it is", tc.name, st.Verdict, st.Quarantine, st.Content)
			}
		}
	}
	t.Logf("attacks caught: %d of %d (%.1f%%)", caught, attacks, 100*float64(caught)/float64(attacks))
}
