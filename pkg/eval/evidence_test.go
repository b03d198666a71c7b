package eval

import (
	"slices"
	"testing"
)

func TestParseDiaID(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"D1:3", "D1:3", true},
		{" d10:19 ", "D10:19", true},
		{"D:11:26", "D11:26", true},
		{"D01:003", "D1:3", true},
		{"D", "", false},
		{"D1", "", false},
		{"D1:", "", false},
		{"X1:3", "", false},
		{"D-1:3", "", false},
		{"D1:+3", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, ok := ParseDiaID(c.in)
			if got != c.want || ok != c.ok {
				t.Fatalf("ParseDiaID(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestNormalizeEvidence(t *testing.T) {
	cases := []struct {
		name  string
		in    []string
		want  []string
		stats EvidenceStats
	}{
		{name: "clean", in: []string{"D1:3", "D2:4"}, want: []string{"D1:3", "D2:4"}},
		{name: "two ids in one string", in: []string{"D8:6; D9:17"}, want: []string{"D8:6", "D9:17"}, stats: EvidenceStats{Repaired: 1}},
		{name: "stray colon", in: []string{"D:11:26"}, want: []string{"D11:26"}, stats: EvidenceStats{Repaired: 1}},
		{name: "no id", in: []string{"D", "D1:2"}, want: []string{"D1:2"}, stats: EvidenceStats{Dropped: 1}},
		{name: "duplicates kept once", in: []string{"D1:2", "d1:2"}, want: []string{"D1:2"}, stats: EvidenceStats{Repaired: 1}},
		{name: "empty", in: nil, want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st EvidenceStats
			got := NormalizeEvidence(c.in, &st)
			if !slices.Equal(got, c.want) || st != c.stats {
				t.Fatalf("NormalizeEvidence(%q) = %q, %+v; want %q, %+v", c.in, got, st, c.want, c.stats)
			}
		})
	}
}

func TestDiaTag(t *testing.T) {
	tag := diaTag("D12:34")
	if tag != "dia:d12:34" || len(tag) > 32 {
		t.Fatalf("diaTag = %q", tag)
	}
	if got := diaFromTag(tag); got != "D12:34" {
		t.Fatalf("diaFromTag(%q) = %q", tag, got)
	}
	for _, other := range []string{"topic:x", "dia:", "dia:nope"} {
		if got := diaFromTag(other); got != "" {
			t.Fatalf("diaFromTag(%q) = %q, want none", other, got)
		}
	}
}
