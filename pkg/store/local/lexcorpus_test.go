package local

import (
	"math/rand/v2"
	"strings"
)

// textCorpus makes English-like sentences: content words drawn from a
// vocabulary of made-up words with a Zipf distribution (a few words are
// everywhere, most are rare), mixed with stopwords as prose has them.
type textCorpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

var corpusStopwords = []string{"the", "a", "to", "of", "and", "in", "is", "for", "with", "on", "it", "that"}

func newTextCorpus(seed uint64, words int) *textCorpus {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sta", "ver", "tion", "pli", "gor", "den", "qua", "fel", "brin", "tho", "zu", "ar", "es", "ing", "ed"}
	seen := make(map[string]bool, words)
	vocab := make([]string, 0, words)
	for len(vocab) < words {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &textCorpus{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(words-1)), vocab: vocab}
}

// word is a content word by Zipf rank.
func (c *textCorpus) word() string { return c.vocab[c.zipf.Uint64()] }

// sentence is 8 to 24 words, about a third of them stopwords.
func (c *textCorpus) sentence() string {
	n := 8 + c.rng.IntN(17)
	words := make([]string, n)
	for i := range words {
		if c.rng.IntN(3) == 0 {
			words[i] = corpusStopwords[c.rng.IntN(len(corpusStopwords))]
		} else {
			words[i] = c.word()
		}
	}
	return strings.Join(words, " ") + "."
}

// query is 3 to 8 content words.
func (c *textCorpus) query() string {
	words := make([]string, 3+c.rng.IntN(6))
	for i := range words {
		words[i] = c.word()
	}
	return strings.Join(words, " ")
}
