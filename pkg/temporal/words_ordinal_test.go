package temporal

import "testing"

func TestOrdinal(t *testing.T) {
	for w, want := range map[string]int{"first": 1, "fifth": 5, "twelfth": 12, "4th": 4, "21st": 21, "2nd": 2, "3rd": 3} {
		if n, ok := Ordinal(w); !ok || n != want {
			t.Errorf("Ordinal(%q) = %d, %v; want %d", w, n, ok, want)
		}
	}
	for _, w := range []string{"0th", "th", "4", "fourteen", "last", "4thx", ""} {
		if n, ok := Ordinal(w); ok {
			t.Errorf("Ordinal(%q) = %d: not an ordinal", w, n)
		}
	}
	// The weeks of a month keep their ordinals.
	if len(ordinalWords) != 9 || ordinalWords["fifth"] != 5 || ordinalWords["4th"] != 4 || ordinalWords["sixth"] != 0 {
		t.Errorf("ordinalWords = %v", ordinalWords)
	}
}
