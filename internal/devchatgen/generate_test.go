package devchatgen

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/eval"
)

func generate(t *testing.T, o Options) (*eval.DevChat, []byte) {
	t.Helper()
	set, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(set)
	if err != nil {
		t.Fatal(err)
	}
	return set, data
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, o := range []Options{DefaultOptions(), ClassesOptions(), AliasesOptions(), NamesOptions()} {
		_, a := generate(t, o)
		_, b := generate(t, o)
		if !bytes.Equal(a, b) {
			t.Fatal("two runs with the same options differ")
		}
		o.Seed++
		if _, c := generate(t, o); bytes.Equal(a, c) {
			t.Fatal("another seed gives the same set")
		}
	}
}

// TestCommittedSetIsCurrent: testdata holds what the generator makes now
// (run go generate ./internal/devchatgen after changing it).
func TestCommittedSetIsCurrent(t *testing.T) {
	for file, o := range map[string]Options{"devchat.json.gz": DefaultOptions(), "devchat-classes.json.gz": ClassesOptions(),
		"devchat-aliases.json.gz": AliasesOptions(), "devchat-names.json.gz": NamesOptions()} {
		f, err := os.Open("../../testdata/devchat/" + file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		committed, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if _, want := generate(t, o); !bytes.Equal(committed, want) {
			t.Fatalf("testdata/devchat/%s is stale: run go generate ./internal/devchatgen", file)
		}
	}
}

// The classes of issue 21 are only in the classes set.
var classCategories = []string{CategoryShortFact, CategoryThreadUpdate, CategoryDateAnchored, CategoryEventOrder, CategoryMultiEntity}

func TestGeneratedSetShape(t *testing.T) {
	t.Run("devchat", func(t *testing.T) { checkShape(t, DefaultOptions()) })
	t.Run("classes", func(t *testing.T) { checkShape(t, ClassesOptions()) })
	t.Run("aliases", func(t *testing.T) { checkShape(t, AliasesOptions()) })
	t.Run("names", func(t *testing.T) { checkShape(t, NamesOptions()) })
}

func checkShape(t *testing.T, o Options) {
	set, data := generate(t, o)
	if _, err := eval.ParseDevChat(data); err != nil {
		t.Fatalf("the set does not pass the loader's checks: %v", err)
	}
	if len(set.Conversations) != o.Conversations {
		t.Fatalf("%d conversations", len(set.Conversations))
	}
	cats, total := map[string]int{}, 0
	for _, c := range set.Conversations {
		if n := len(c.Sessions); n < o.MinSessions || n > o.MaxSessions {
			t.Errorf("%s: %d sessions", c.ID, n)
		}
		first, last := c.Sessions[0].Start, c.Sessions[len(c.Sessions)-1].Start
		if span := last.Sub(first); span < 21*24*time.Hour || !c.AsOf.Before(o.Anchor) || c.AsOf.Before(last) {
			t.Errorf("%s: sessions %s..%s, as_of %s, anchor %s", c.ID, first, last, c.AsOf, o.Anchor)
		}
		turns := map[string]eval.DevChatTurn{}
		for _, s := range c.Sessions {
			if len(s.Turns) < o.MinTurns-1 {
				t.Errorf("%s session %d: %d turns", c.ID, s.Number, len(s.Turns))
			}
			for _, tu := range s.Turns {
				turns[tu.ID] = tu
			}
		}
		for _, q := range c.Questions {
			total++
			cats[q.Category]++
			checkQuestion(t, c, q, turns)
		}
	}
	if total < 150 {
		t.Fatalf("%d questions, want at least 150", total)
	}
	for _, cat := range eval.DevChatCategories {
		if cat == CategoryAlias {
			if o.Aliases != (cats[cat] >= 20) {
				t.Errorf("category %s has %d questions (aliases planted: %v)", cat, cats[cat], o.Aliases)
			}
			continue
		}
		if cat == CategoryNamed {
			if o.Names != (cats[cat] >= 20) {
				t.Errorf("category %s has %d questions (suggestions planted: %v)", cat, cats[cat], o.Names)
			}
			continue
		}
		switch class := slices.Contains(classCategories, cat); {
		case class && !o.Classes && cats[cat] > 0:
			t.Errorf("category %s has %d questions in a set without the classes", cat, cats[cat])
		case (o.Classes || !class) && cats[cat] < 20:
			t.Errorf("category %s has %d questions, want at least 20", cat, cats[cat])
		}
	}
}

func checkQuestion(t *testing.T, c eval.DevChatConversation, q eval.DevChatQuestion, turns map[string]eval.DevChatTurn) {
	t.Helper()
	answers := []string{q.Answer}
	switch q.Category {
	case "multi-session", CategoryMultiEntity, CategoryEventOrder, CategoryAlias:
		answers = strings.FieldsFunc(q.Answer, func(r rune) bool { return r == '→' || r == ';' })
	}
	for _, a := range answers {
		a = strings.TrimSpace(a)
		if q.Category == CategoryEventOrder { // "first <did> (<date>)", "then <did> (<date>)"
			_, a, _ = strings.Cut(a, " ")
			a = a[:strings.LastIndex(a, " (")]
		}
		holders := 0
		for _, id := range q.Evidence {
			if mentions(turns[id].Text, a) {
				holders++
			}
		}
		if holders == 0 {
			t.Errorf("%s %q: no evidence turn holds %q", q.ID, q.Question, a)
		}
		if len(answers) > 1 && holders == len(q.Evidence) {
			t.Errorf("%s %q: every evidence turn holds %q, the other parts have none", q.ID, q.Question, a)
		}
	}
	if q.Category == eval.UpdateCategory {
		if len(q.Stale) == 0 {
			t.Errorf("%s: update without stale evidence", q.ID)
		}
		for _, s := range q.Stale {
			for _, e := range q.Evidence {
				if !turns[s].TS.Before(turns[e].TS) {
					t.Errorf("%s: stale %s is not older than %s", q.ID, s, e)
				}
			}
			if mentions(turns[s].Text, q.Answer) {
				t.Errorf("%s: stale %s already holds the current answer %q", q.ID, s, q.Answer)
			}
		}
	}
	// Relative time words are true as of the conversation's as_of.
	ev := turns[q.Evidence[0]].TS
	days := civilDays(ev, c.AsOf)
	for phrase, want := range map[string]int{"today": 0, "yesterday": 1, "two days ago": 2, "three days ago": 3, "four days ago": 4, "five days ago": 5, "six days ago": 6} {
		if strings.Contains(q.Question, phrase) && days != want {
			t.Errorf("%s %q: evidence is %d days before as_of", q.ID, q.Question, days)
		}
	}
	if strings.Contains(q.Question, "last week") {
		monday := civilDate(c.AsOf).AddDate(0, 0, -((int(c.AsOf.Weekday()) + 6) % 7))
		if d := civilDate(ev); d.Before(monday.AddDate(0, 0, -7)) || !d.Before(monday) {
			t.Errorf("%s %q: evidence on %s is not in the week before %s", q.ID, q.Question, d, monday)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for name, change := range map[string]func(*Options){
		"no conversations": func(o *Options) { o.Conversations = 0 },
		"too many":         func(o *Options) { o.Conversations = len(users) + 1 },
		"sessions":         func(o *Options) { o.MinSessions, o.MaxSessions = 5, 4 },
		"turns":            func(o *Options) { o.MinTurns = 2 },
		"anchor":           func(o *Options) { o.Anchor = time.Time{} },
	} {
		t.Run(name, func(t *testing.T) {
			o := DefaultOptions()
			change(&o)
			if _, err := Generate(o); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
