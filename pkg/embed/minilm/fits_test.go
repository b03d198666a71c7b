package minilm

import (
	"strings"
	"testing"
)

// Fits answers as the tokenizer does around the 256-token limit, for text
// of every kind: its shortcut for short text (a token covers at least one
// character) never says a truncated text fits.
func TestFitsAgreesWithTheTokenizer(t *testing.T) {
	m := testModel(t)
	pieces := []string{"word ", "x", "猫", "é", "!", "getUserName() ", "[SEP]", "0x1f ", "ǅ", "🙂", "can't "}
	for _, p := range pieces {
		for n := 200; n <= 320; n += 3 {
			text := strings.Repeat(p, n)
			want := len(m.tok.encode(text)) < maxTokens
			if got := m.Fits(text); got != want {
				t.Fatalf("Fits(%d × %q) = %v, the tokenizer says %v (%d tokens)", n, p, got, want, len(m.tok.encode(text)))
			}
		}
	}
	if m.Fits(strings.Repeat("a b ", 400)) {
		t.Fatal("800 words fit?")
	}
}
