package alias

import (
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	cases := []struct {
		text string
		want []Alias
	}{
		{"I took my dog Max to the park", []Alias{{"Max", "dog", "pet"}}},
		{"our cat, Luna, sleeps all day", []Alias{{"Luna", "cat", "pet"}}},
		{"My sister Anna called", []Alias{{"Anna", "sister", "family"}}},
		{"my dogs Max and Bella love it", []Alias{{"Max", "dog", "pet"}, {"Bella", "dog", "pet"}}},
		{"we adopted a puppy named Oscar", []Alias{{"Oscar", "puppy", "pet"}}},
		{"Anna, my sister, is here", []Alias{{"Anna", "sister", "family"}}},
		{"I pushed the ledger-api project today", []Alias{{"ledger-api", "project", "project"}}},
		{"started project Phoenix", []Alias{{"Phoenix", "project", "project"}}},
		{"I do- Oscar, my guinea pig. He's great", []Alias{{"Oscar", "guinea pig", "pet"}}},
		{"we got another cat named Bailey too", []Alias{{"Bailey", "cat", "pet"}}},
		{"Thankfully, my son's ok", nil},
		{"my dog I love so much", nil},
		{"the new project is late", nil},
		{"my friend Yesterday", nil},
	}
	for _, c := range cases {
		if got := Find(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Find(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestKeyRoundTrip(t *testing.T) {
	a := Alias{Name: "Ledger API", Word: "project", Class: "project"}
	got, ok := Parse(Key(a))
	if !ok || got.Name != "ledger-api" || got.Word != "project" || got.Class != "project" {
		t.Fatalf("Parse(Key(%v)) = %v, %v", a, got, ok)
	}
	if _, ok := Parse("transcript/s1"); ok {
		t.Fatal("a transcript key parsed as an alias")
	}
	if c := Content(Alias{"Max", "dog", "pet"}, "Melanie"); c != "Max: Melanie's dog (pet)" {
		t.Fatalf("Content = %q", c)
	}
}
