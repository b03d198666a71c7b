package recall

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestInformationPrior(t *testing.T) {
	prior := func(content string) float64 { return informationPrior(&memory.Memory{Content: content}) }
	generic := []string{"That's for sure!", "Hey, what's up?", "Wow, thanks!", "Yeah, totally."}
	specific := []string{
		"I adopted a beagle named Max from the shelter on Elm Street last spring.",
		"Run make lint before pushing: CI rejects unformatted Go files.",
	}
	for _, g := range generic {
		for _, s := range specific {
			if pg, ps := prior(g), prior(s); pg >= ps-0.05 {
				t.Errorf("prior(%q) = %.3f is not clearly below prior(%q) = %.3f", g, pg, s, ps)
			}
		}
	}
	if p := prior(""); math.Abs(p-infoFloor) > 1e-9 {
		t.Errorf("empty content: prior %.3f, want the floor %.3f", p, infoFloor)
	}
	// Smooth, not a cut-off: every informative term adds, less and less.
	words := []string{"beagle", "shelter", "Elm", "Street", "spring", "adopted", "Max", "vet", "Tuesday", "rabies"}
	last, step := prior(""), 1.0
	for i := range words {
		p := prior(joinWords(words[:i+1]))
		if p <= last || p-last >= step+1e-12 || p > 1 {
			t.Fatalf("prior with %d terms = %.4f after %.4f: not rising smoothly towards 1", i+1, p, last)
		}
		last, step = p, p-last
	}
	// Repeats add nothing; fillers add a little.
	if prior("beagle beagle beagle") != prior("beagle") {
		t.Error("repeated term counted again")
	}
	if f, w := prior("thanks"), prior("beagle"); !(f > infoFloor && f < w) {
		t.Errorf("filler prior %.3f, want between the floor %.3f and an informative word's %.3f", f, infoFloor, w)
	}
}

func joinWords(ws []string) string {
	out := ""
	for _, w := range ws {
		out += w + " "
	}
	return out
}

// TestRankPrefersSpecific: a generic turn a little more relevant than a
// specific memory no longer outranks it; a much more relevant one still
// does, and the factor is in the result.
func TestRankPrefersSpecific(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &Recaller{cfg: Config{}.withDefaults(), now: func() time.Time { return now }}
	mk := func(id, content string, rel float64) hit {
		m := memory.Memory{ID: id, Content: content, Layer: memory.LayerWorking, Importance: 0.5, ModifiedAt: now}
		return hit{candidate: candidate{mem: &m}, rel: rel}
	}
	specific := mk("s", "Melanie signed up for a pottery class at the community center in July.", 0.55)
	res := r.rank([]hit{mk("g", "That's for sure!", 0.60), specific}, Request{})
	if len(res) != 2 || res[0].Memory.ID != "s" {
		t.Fatalf("ranked %v, want the specific memory first", ids(res))
	}
	if res[1].Information >= res[0].Information || res[0].Information > 1 {
		t.Fatalf("information %.3f (generic) vs %.3f (specific)", res[1].Information, res[0].Information)
	}
	res = r.rank([]hit{mk("g", "That's for sure!", 0.95), specific}, Request{})
	if res[0].Memory.ID != "g" {
		t.Fatalf("ranked %v: a much more relevant short memory should still win", ids(res))
	}
}

func ids(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Memory.ID)
	}
	return out
}

func TestInformativeTerms(t *testing.T) {
	for _, tc := range []struct {
		text string
		want float64
	}{
		{"That's for sure!", fillerWeight},
		{"That\u2019s what I THOUGHT", 1},
		{"Hey, what's up?", fillerWeight},
		{"a b c 7", 1},
		{"Caroline went to the LGBTQ support group", 5},
		{"user_name getUserName getUserName", 3},
		{"Café café naïve", 2},
		{strings.Repeat("x", 65) + " ok", fillerWeight},
	} {
		if got := informativeTerms(tc.text); got != tc.want {
			t.Errorf("informativeTerms(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron ", 50)
	if got := informativeTerms(long); got != infoEnough {
		t.Errorf("long text: %v, want the cap %d", got, infoEnough)
	}
	// It runs for every ranked candidate: plain text costs no allocation.
	if n := testing.AllocsPerRun(100, func() { informativeTerms("Melanie signed up for a pottery class in July") }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
