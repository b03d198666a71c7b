package lexical

import (
	"hash/fnv"
	"math"
	"testing"
)

func TestTF(t *testing.T) {
	if got := TF(1, AvgDocLen); math.Abs(got-1) > 1e-12 {
		t.Errorf("TF(1, AvgDocLen) = %v, want 1 (one occurrence in an average document)", got)
	}
	// tf·(K1+1) / (tf + K1·(1 − B + B·24/12))
	if got, want := TF(2, 24), 2*(K1+1)/(2+K1*(1+B)); math.Abs(got-want) > 1e-12 {
		t.Errorf("TF(2, 24) = %v, want %v", got, want)
	}
	for _, tf := range []int{0, -1} {
		if got := TF(tf, 10); got != 0 {
			t.Errorf("TF(%d, 10) = %v, want 0", tf, got)
		}
	}
	for tf := 1; tf < 50; tf++ {
		if TF(tf+1, 20) <= TF(tf, 20) {
			t.Fatalf("TF does not grow with tf at %d", tf)
		}
		if TF(tf, 20) >= K1+1 {
			t.Fatalf("TF(%d, 20) = %v, not below K1+1", tf, TF(tf, 20))
		}
	}
	for n := 1; n < 100; n++ {
		if TF(1, n+1) >= TF(1, n) {
			t.Fatalf("TF does not shrink as the document grows at %d", n)
		}
	}
}

func TestIDF(t *testing.T) {
	// Qdrant's fancy_idf: ln((n − df + 0.5)/(df + 0.5) + 1).
	if got, want := IDF(10, 1), math.Log(9.5/1.5+1); math.Abs(got-want) > 1e-12 {
		t.Errorf("IDF(10, 1) = %v, want %v", got, want)
	}
	for df := 0; df < 100; df++ {
		if IDF(100, df) <= 0 {
			t.Fatalf("IDF(100, %d) = %v, want positive", df, IDF(100, df))
		}
		if IDF(100, df+1) >= IDF(100, df) {
			t.Fatalf("IDF does not fall as df grows at %d", df)
		}
	}
}

func TestHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "a", "commit", "snake_case", "机器"} {
		h := fnv.New32a()
		h.Write([]byte(s))
		if got, want := Hash(s), h.Sum32(); got != want {
			t.Errorf("Hash(%q) = %#x, want FNV-1a %#x", s, got, want)
		}
	}
}
