package lexical

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// The table gives the stemmer's answer whatever the slot holds: words
// sharing slots, read and replaced by several goroutines at once.
func TestCachedStemIsStem(t *testing.T) {
	words := []string{"committing", "commits", "committed", "happily", "generously", "skies", "dying", "news", "ours", "running"}
	for i := range 3 * stemSlots {
		words = append(words, fmt.Sprintf("word%dings", i))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range words {
				w := words[(i*7+g*13)%len(words)]
				if got, want := cachedStem(w), stem(w); got != want {
					t.Errorf("cachedStem(%q) = %q, stem says %q", w, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCachedStemKeepsNoView(t *testing.T) {
	text := "a long text whose word refactoring is cached"
	w := text[17:28] // "refactoring"
	cachedStem(w)
	e := stemTable[slotOf(w)].Load()
	if e == nil || e.word != w {
		t.Fatalf("slot holds %+v", e)
	}
	if unsafe.StringData(e.word) == unsafe.StringData(w) {
		t.Fatal("the table holds a view into the text")
	}
}
