package recall

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestAdaptiveWeights(t *testing.T) {
	tests := []struct {
		query string
		want  Weights
	}{
		{"ask Sarah", Weights{Vector: 0.35, Text: 0.65}},
		{"code style", Weights{Vector: 0.45, Text: 0.55}},
		{"preferred indentation for Go", Weights{Vector: 0.70, Text: 0.30}},
		{"what did we decide about the API architecture for billing service", Weights{Vector: 0.80, Text: 0.20}},
	}
	for _, tt := range tests {
		if got := AdaptiveWeights(tt.query); got != tt.want {
			t.Errorf("AdaptiveWeights(%q) = %+v, want %+v", tt.query, got, tt.want)
		}
	}
}

func TestRelevanceRules(t *testing.T) {
	w := Weights{Vector: 0.7, Text: 0.3}
	terms := map[string]bool{"indent": true}
	both := relevance(candidate{semantic: 0.6, lexical: 1, dense: true, text: true}, w, terms)
	plain := 0.7*0.6 + 0.3*1
	if math.Abs(both-math.Min(1, plain*(1+0.3))) > 1e-9 {
		t.Fatalf("dual hit = %v, want boosted %v", both, plain*1.3)
	}
	lexOnly := relevance(candidate{semantic: 0.1, lexical: 0.8, text: true}, w, terms)
	if lexOnly > 0.8*0.25+1e-9 {
		t.Fatalf("lexical-only hit without semantic support = %v, want capped at %v", lexOnly, 0.2)
	}
	withTerm := relevance(candidate{semantic: 0.5, dense: true, mem: &memory.Memory{Content: "indent with tabs"}}, w, terms)
	without := relevance(candidate{semantic: 0.5, dense: true, mem: &memory.Memory{Content: "use tabs"}}, w, terms)
	if math.Abs(without-withTerm*0.7) > 1e-9 {
		t.Fatalf("keyword affinity: %v vs %v, want a 0.7 penalty", without, withTerm)
	}
}

func TestSmoothNeighbours(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	mk := func(session string, ts time.Time) candidate {
		return candidate{mem: &memory.Memory{Session: session, CreatedAt: ts}}
	}
	cands := []candidate{
		mk("s1", t0),                    // the question that matches
		mk("s1", t0.Add(time.Second)),   // its answer
		mk("s1", t0.Add(time.Hour)),     // same session, far away
		mk("s2", t0.Add(2*time.Second)), // other session
		mk("", t0.Add(3*time.Second)),   // no session
	}
	got := smoothNeighbours(cands, []float64{0.8, 0.2, 0.1, 0.1, 0.1})
	want := []float64{0.8, 0.2 + neighbourPull*0.6, 0.1, 0.1, 0.1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("smoothed = %v, want %v", got, want)
		}
	}
}

func TestCapPerDomainAndBlock(t *testing.T) {
	var results []Result
	for i, d := range []string{"general", "general", "tool-usage", "general", "user-preferences", "general"} {
		results = append(results, Result{Memory: memory.Memory{ID: string(rune('a' + i)), Domain: d, Content: "fact " + string(rune('a'+i))}})
	}
	got := capPerDomain(results, 2, 4)
	ids := ""
	for _, r := range got {
		ids += r.Memory.ID
	}
	if ids != "abce" {
		t.Fatalf("kept %q, want abce", ids)
	}
	// The budget spreads the answer; it never shortens it: asked for 5 of
	// six with 2 per domain, the fifth place goes to the best of the rest.
	ids = ""
	for _, r := range capPerDomain(results, 2, 5) {
		ids += r.Memory.ID
	}
	if ids != "abcde" {
		t.Fatalf("kept %q for 5, want abcde", ids)
	}
	r := &Recaller{domains: domains.Builtin()}
	block := r.Block(got)
	wantOrder := []string{"## Recalled Context", "### Tool Usage Patterns", "- fact c", "### User Preferences", "- fact e", "### General Knowledge", "- fact a", "- fact b"}
	pos := 0
	for _, w := range wantOrder {
		i := strings.Index(block[pos:], w)
		if i < 0 {
			t.Fatalf("block lacks %q after position %d:\n%s", w, pos, block)
		}
		pos += i
	}
	if r.Block(nil) != "" {
		t.Fatal("empty results give a block")
	}
	later := time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)
	hidden := []Result{
		{Memory: memory.Memory{ID: "t", Domain: "general", Content: "user: hi", Tags: []string{TranscriptTag}}},
		{Memory: memory.Memory{ID: "a", Domain: "general", Content: "old fact", Archived: true}},
		{Memory: memory.Memory{ID: "s", Domain: "general", Content: "replaced fact", InvalidAt: &time.Time{}, SupersededBy: "n"}},
		{Memory: memory.Memory{ID: "f", Domain: "general", Content: "replaced later", InvalidAt: &later}},
		{Memory: memory.Memory{ID: "b", Domain: "general", Content: " \n "}},
	}
	if b := r.Block(hidden); b != "" {
		t.Fatalf("transcript chunks, archived, superseded or blank memories injected:\n%s", b)
	}
}
