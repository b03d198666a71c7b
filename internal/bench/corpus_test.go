package bench

import (
	"bytes"
	"math"
	"testing"
)

func TestExactTopKFindsItself(t *testing.T) {
	c := newCorpus(3)
	slab, idx := c.tenantSlab(1, 30)
	if len(idx) != 10 || idx[0] != 1 || idx[9] != 28 {
		t.Fatalf("tenant 1 rows = %v", idx)
	}
	q := make([]float32, corpusDim)
	c.vector(13, q)
	got := c.exactTopK(slab, idx, q, 3)
	if want := c.memory(13).ID; got[0] != want {
		t.Errorf("top hit %s, want memory 13's id %s", got[0], want)
	}
	var norm float64
	for _, x := range q {
		norm += float64(x) * float64(x)
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Errorf("|v|² = %v, want 1", norm)
	}
}

func TestCorpusIsZipfAndReproducible(t *testing.T) {
	c := newCorpus(1)
	if c.text(42) != newCorpus(1).text(42) {
		t.Fatal("memory text not reproducible")
	}
	counts := map[string]int{}
	for i := range 2000 {
		for _, w := range bytes.Fields([]byte(c.text(i))) {
			counts[string(w)]++
		}
	}
	// Zipf: the most common word is far more frequent than a mid-rank one.
	top, mid := counts[c.words[0]], counts[c.words[200]]
	if top < 10*max(mid, 1) {
		t.Errorf("rank 0 seen %d times, rank 200 %d: not Zipf-like", top, mid)
	}
}

func TestLongMessagesAreReproducibleDistinctAndInBounds(t *testing.T) {
	seen := map[string]int{}
	for i := range 300 {
		s := LongMessage(i)
		if s != LongMessage(i) {
			t.Fatalf("message %d differs between calls", i)
		}
		// ASCII, so no more characters than memory.MaxContentChars.
		if len(s) < LongMinBytes || len(s) > LongMaxBytes {
			t.Fatalf("message %d has %d bytes, want %d to %d", i, len(s), LongMinBytes, LongMaxBytes)
		}
		for j := range len(s) {
			if s[j] >= 0x80 {
				t.Fatalf("message %d byte %d is not ASCII", i, j)
			}
		}
		if j, dup := seen[s]; dup {
			t.Fatalf("messages %d and %d are the same", j, i)
		}
		seen[s] = i
		if short := LongMessageMax(i, 2048); len(short) < LongMinBytes || len(short) > 2048 {
			t.Fatalf("message %d capped at 2048 has %d bytes", i, len(short))
		}
	}
}
