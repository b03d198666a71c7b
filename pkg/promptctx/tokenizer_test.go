package promptctx

import (
	"sync"
	"testing"
)

// Known cl100k_base counts (OpenAI's tiktoken): "hello world" is
// [15339 1917], "tiktoken is great!" [83 1609 5963 374 2294 0],
// "antidisestablishmentarianism" [519 85342 34500 479 8997 2191].
func TestBPECounts(t *testing.T) {
	tok := loadBPE(t)
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
		{"tiktoken is great!", 6},
		{"antidisestablishmentarianism", 6},
		{"## Recalled Context\n- a\n", 8},
	} {
		t.Run(c.text, func(t *testing.T) {
			if got := tok.Count(c.text); got != c.want {
				t.Fatalf("Count(%q) = %d, want %d", c.text, got, c.want)
			}
		})
	}
}

func TestBPEConcurrent(t *testing.T) {
	tok := loadBPE(t)
	var wg sync.WaitGroup
	errs := make(chan int, 8)
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if n := tok.Count("tiktoken is great!"); n != 6 {
					errs <- n
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for n := range errs {
		t.Fatalf("concurrent Count gave %d, want 6", n)
	}
}

func TestBPEName(t *testing.T) {
	n, ok := loadBPE(t).(interface{ Name() string })
	if !ok || n.Name() != "cl100k_base" {
		t.Fatalf("tokenizer is not cl100k_base")
	}
}
