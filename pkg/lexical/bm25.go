package lexical

import "math"

// BM25 parameters. Changing any of them, or what Terms returns, changes
// stored document vectors: a Qdrant collection must then be re-indexed (the
// local engine rebuilds its index on open).
const (
	// K1 is how fast repeats of a term stop adding to its weight.
	K1 = 1.2
	// B is how much a document's length discounts its term weights. Lower
	// than the textbook 0.75: a memory is a sentence or two, and a longer
	// one usually says more rather than rambles. On the LoCoMo dev half
	// (every turn a memory, BM25 alone) recall_any@5/@10 of the evidence
	// is 0.589/0.675 with 0.75 and 0.628/0.693 with 0.3.
	B = 0.3
	// AvgDocLen is the document length (in terms) that B normalises
	// against. Memories are a sentence or two: the turns of a LoCoMo
	// conversation average 11.8 terms, extracted facts fewer; a memory's
	// key and tags add a few more.
	AvgDocLen = 12.0
)

// TF is the BM25 weight of a term occurring tf times in a document of
// docLen terms: tf·(K1+1) / (tf + K1·(1 − B + B·docLen/AvgDocLen)). It is in
// (0, K1+1) for tf ≥ 1, and 0 for tf ≤ 0.
func TF(tf, docLen int) float64 {
	if tf <= 0 {
		return 0
	}
	f := float64(tf)
	return f * (K1 + 1) / (f + K1*(1-B+B*float64(docLen)/AvgDocLen))
}

// IDF is the BM25 inverse document frequency of a term found in df of n
// documents: ln(1 + (n − df + 0.5)/(df + 0.5)), Qdrant's formula. It is
// positive for 0 ≤ df ≤ n, so every matching term adds to a score.
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Hash is a term's index in a sparse vector: 32-bit FNV-1a of its bytes.
func Hash(term string) uint32 {
	const (
		offset = 2166136261
		prime  = 16777619
	)
	h := uint32(offset)
	for i := 0; i < len(term); i++ {
		h ^= uint32(term[i])
		h *= prime
	}
	return h
}
