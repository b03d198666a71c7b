package recall

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/temporal"
)

func TestCompeting(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	vec := []float32{0.6, 0.8}
	other := []float32{1, 0}
	mk := func(content, subject, key string, v []float32, d int) memory.Memory {
		return memory.Memory{Content: content, Subject: subject, Key: key, Vector: v, CreatedAt: t0.AddDate(0, 0, d)}
	}
	for _, tc := range []struct {
		name string
		a, b memory.Memory
		want bool
	}{
		{"same key", mk("likes tea", "u", "drink", other, 0), mk("likes coffee", "u", "drink", vec, 1), true},
		{"similar, detail differs", mk("test coverage is 65%", "", "", vec, 0), mk("test coverage is 78%", "", "", vec, 3), true},
		{"similar, new adds a detail", mk("the pool is set to 20", "", "", vec, 0), mk("I raised the pool from 20 to 50", "", "", vec, 3), true},
		{"similar, reworded", mk("Let's go with GORM for database access", "", "", vec, 0), mk("I'm replacing GORM with sqlx for database access", "", "", vec, 3), true},
		{"the same statement", mk("I love hiking", "", "", vec, 0), mk("I love hiking", "", "", vec, 3), false},
		{"dissimilar", mk("test coverage is 65%", "", "", vec, 0), mk("test coverage is 78%", "", "", other, 3), false},
		{"other subject", mk("test coverage is 65%", "a", "k", vec, 0), mk("test coverage is 78%", "b", "k", vec, 3), false},
		{"same time", mk("test coverage is 65%", "", "k", vec, 0), mk("test coverage is 78%", "", "k", vec, 0), false},
	} {
		if got := competing(&tc.a, &tc.b); got != tc.want {
			t.Errorf("%s: competing = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCloseness(t *testing.T) {
	d := func(m time.Month, day int) time.Time { return time.Date(2025, m, day, 0, 0, 0, 0, time.UTC) }
	june := temporal.Window{From: d(6, 1), To: d(7, 1), Confidence: 1}
	point := func(t time.Time) temporal.Window { return temporal.Window{From: t, To: t.Add(time.Nanosecond)} }
	if c := closeness(june, point(d(6, 15))); c != 1 {
		t.Fatalf("inside: %v", c)
	}
	after, before := closeness(june, point(d(7, 8))), closeness(june, point(d(5, 25)))
	if !(after > before && after < 1 && before > 0) {
		t.Fatalf("a week after %v should be closer than a week before %v", after, before)
	}
	if c := closeness(june, point(d(12, 1))); c > 0.01 {
		t.Fatalf("five months after: %v", c)
	}
	open := temporal.Window{To: d(6, 1), Confidence: 1}
	if closeness(open, point(d(1, 1))) != 1 || math.IsNaN(closeness(open, point(d(6, 10)))) {
		t.Fatal("open window")
	}
}

// The newer of two competing memories moves to just above the older; the
// older and everything else keep their order.
func TestNewerWinsPlacesNewerAboveOlder(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	res := func(id, key string, score float64, day int) Result {
		return Result{Memory: memory.Memory{ID: id, Key: key, CreatedAt: t0.AddDate(0, 0, day)}, Score: score}
	}
	out := []Result{res("old", "k", 0.9, 0), res("x", "", 0.8, 5), res("y", "", 0.7, 6), res("new", "k", 0.6, 9)}
	tr := &timeRank{}
	if !tr.newerWins(out) {
		t.Fatal("no move")
	}
	var got []string
	for _, r := range out {
		got = append(got, r.Memory.ID)
	}
	if want := []string{"new", "old", "x", "y"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if out[1].OutrankedBy != "new" || out[1].Score != 0.9 {
		t.Fatalf("older %+v", out[1])
	}
	tr.q.Past = true
	out = []Result{res("old", "k", 0.9, 0), res("new", "k", 0.6, 9)}
	if tr.newerWins(out) || out[0].Memory.ID != "old" {
		t.Fatal("a question about the past keeps the older first")
	}
}

func TestCompetingTurns(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	near := []float32{0.6, 0.8} // cosine 0.75 with vec
	vec := []float32{0, 1}      // the older turn's
	far := []float32{0.8, 0.6}  // cosine 0.6 with vec
	turn := func(content string, v []float32, d int) memory.Memory {
		return memory.Memory{Content: content, Vector: v, Key: "transcript/s", Tags: []string{memory.TranscriptTag}, CreatedAt: t0.AddDate(0, 0, d)}
	}
	older := turn("Ann: ledger-api listens on port 9443.", vec, 0)
	for _, tc := range []struct {
		name  string
		newer memory.Memory
		want  bool
	}{
		{"the speaker says it changed", turn("Ann: ledger-api listens on port 8080 now.", near, 3), true},
		{"no word of change", turn("Ann: ledger-api listens on port 8080.", near, 3), false},
		{"another speaker", turn("Bob: ledger-api listens on port 8080 now.", near, 3), false},
		{"too different", turn("Ann: ledger-api listens on port 8080 now.", far, 3), false},
		{"replying to the change", func() memory.Memory {
			m := turn("Ann: ledger-api listens on port 8080.", near, 3)
			m.Evidence = "Bob: I switched ledger-api to another port."
			return m
		}(), true},
	} {
		if got := competing(&older, &tc.newer); got != tc.want {
			t.Errorf("%s: competing = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTranscriptsAgeSlower: for a question about the current state, a
// conversation turn ages transcriptAgeing times slower than a fact of the
// same age.
func TestTranscriptsAgeSlower(t *testing.T) {
	asOf := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	tr := &timeRank{asOf: asOf, scale: 10 * 24 * time.Hour}
	at := asOf.Add(-20 * 24 * time.Hour)
	fact := memory.Memory{CreatedAt: at, ModifiedAt: at}
	turn := fact
	turn.Tags = []string{memory.TranscriptTag}
	if got, want := tr.recency(&fact), math.Exp(-2); math.Abs(got-want) > 1e-9 {
		t.Fatalf("fact recency %v, want %v", got, want)
	}
	if got, want := tr.recency(&turn), math.Exp(-2.0/transcriptAgeing); math.Abs(got-want) > 1e-9 {
		t.Fatalf("turn recency %v, want %v", got, want)
	}
}
