package usage

import (
	"math"
	"strings"
	"testing"
)

func TestParsePrices(t *testing.T) {
	p, err := ParsePrices(" gpt-4o-mini=0.15/0.60, text-embedding-3-small=0.02/0 ,meta-llama/Llama-3-8B=0.05/0.08,")
	if err != nil {
		t.Fatal(err)
	}
	want := Prices{
		"gpt-4o-mini":            {Input: 0.15, Output: 0.60},
		"text-embedding-3-small": {Input: 0.02},
		"meta-llama/Llama-3-8B":  {Input: 0.05, Output: 0.08},
	}
	if len(p) != len(want) {
		t.Fatalf("parsed %v, want %v", p, want)
	}
	for m, w := range want {
		if p[m] != w {
			t.Errorf("%s = %+v, want %+v", m, p[m], w)
		}
	}
	if empty, err := ParsePrices(""); err != nil || len(empty) != 0 {
		t.Errorf(`ParsePrices("") = %v, %v; want an empty table`, empty, err)
	}

	for _, bad := range []string{
		"gpt-4o-mini",             // no =
		"=0.1/0.2",                // no model
		"gpt-4o-mini=0.15",        // no output price
		"gpt-4o-mini=abc/0.6",     // not a number
		"gpt-4o-mini=0.15/-1",     // negative
		"gpt-4o-mini=NaN/0",       // not a number
		"gpt-4o-mini=0.15/Inf",    // infinite
		"m=1/2,m=3/4",             // twice
		"ok=1/2, gpt-4o-mini=x/1", // the bad one among good ones
	} {
		_, err := ParsePrices(bad)
		if err == nil {
			t.Errorf("ParsePrices(%q) accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), PricesFlag) {
			t.Errorf("ParsePrices(%q) = %v: does not name --%s", bad, err, PricesFlag)
		}
		if strings.Contains(bad, "ok=1/2") && (!strings.Contains(err.Error(), "gpt-4o-mini=x/1") || strings.Contains(err.Error(), `"ok=1/2"`)) {
			t.Errorf("ParsePrices(%q) = %v: want only the bad entry named", bad, err)
		}
	}
}

func TestPricesCost(t *testing.T) {
	p := Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.60}}.WithFree("all-MiniLM-L6-v2", "gpt-4o-mini")
	if got, ok := p.Cost("gpt-4o-mini", 2_000_000, 500_000); !ok || math.Abs(got-0.6) > 1e-12 {
		t.Errorf("gpt-4o-mini cost = %v, %v; want 0.6 (WithFree keeps a price that is set)", got, ok)
	}
	if got, ok := p.Cost("all-MiniLM-L6-v2", 1_000_000, 0); !ok || got != 0 {
		t.Errorf("free model cost = %v, %v; want 0, true", got, ok)
	}
	if _, ok := p.Cost("unknown", 1, 1); ok {
		t.Error("an unpriced model has a cost")
	}
}
