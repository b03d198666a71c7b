package lexical

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// SparseVector is a bag of terms: Indices are term hashes (see Hash),
// strictly ascending, and Values[i] is the weight of Indices[i]. It is the
// shape of a Qdrant sparse vector.
type SparseVector struct {
	Indices []uint32
	Values  []float32
}

// Len is the number of terms in the vector.
func (v SparseVector) Len() int { return len(v.Indices) }

// Vector is the document side of BM25 for text: each distinct term weighted
// TF(tf, number of terms). Two terms with the same hash count as one.
func Vector(text string) SparseVector {
	return weigh(appendTerms(nil, text))
}

// MemoryVector is the document vector of a memory: the terms of its content,
// key and tags, counted as one document. Every store indexes exactly this.
// A transcript memory's role tag is left out: it says who spoke, which the
// content already does ("Ann: …"), and "user" in every user turn would
// match every question about a user.
func MemoryVector(m memory.Memory) SparseVector {
	terms := appendTerms(nil, m.Content)
	terms = appendTerms(terms, m.Key)
	for _, t := range m.Tags {
		if strings.HasPrefix(t, memory.RoleTagPrefix) {
			continue
		}
		terms = appendTerms(terms, t)
	}
	return weigh(terms)
}

// SameText reports whether two memories have the same indexed text, and so
// the same MemoryVector.
func SameText(a, b memory.Memory) bool {
	return a.Content == b.Content && a.Key == b.Key && slices.Equal(a.Tags, b.Tags)
}

// QueryVector is the query side of BM25 for text: each distinct term with
// weight 1, so that a store's score is the sum of IDF·TF over the terms a
// document shares with the query — but for the parts of an identifier
// ("metrics-exporter", "getUserName"): the whole is one term of weight 1
// and its parts share a weight of 1, so that a name written in the query
// counts about as much as two words, not as one word per part ("how did we
// fix the import cycle in metrics-exporter?" was answered by every turn
// naming the project before the one naming the import cycle). A term that
// is both a part and a word of its own keeps the larger weight.
func QueryVector(text string) SparseVector {
	weights := map[uint32]float32{}
	var buf []string
	for i := 0; i < len(text); {
		r, _ := utf8.DecodeRuneInString(text[i:])
		buf, i = appendNext(buf[:0], text, i)
		part := float32(1)
		if len(buf) > 1 && !isCJK(r) {
			part = 1 / float32(len(buf)-1)
		}
		for k, t := range buf {
			w := float32(1)
			if k > 0 {
				w = part
			}
			h := Hash(t)
			weights[h] = max(weights[h], w)
			if len(buf) > 1 {
				continue // an identifier's parts are names, not verbs
			}
			for _, f := range verbForms[t] { // irregular.go
				h := Hash(f)
				weights[h] = max(weights[h], w)
			}
			if root, ok := misRoots[t]; ok { // prefixed.go
				h := Hash(root)
				weights[h] = max(weights[h], misRootWeight*w)
			}
		}
	}
	v := SparseVector{Indices: make([]uint32, 0, len(weights)), Values: make([]float32, 0, len(weights))}
	for h := range weights {
		v.Indices = append(v.Indices, h)
	}
	slices.Sort(v.Indices)
	for _, h := range v.Indices {
		v.Values = append(v.Values, weights[h])
	}
	return v
}

// weigh turns a document's terms into its BM25 document vector.
func weigh(terms []string) SparseVector {
	hashes := hashAll(terms)
	v := SparseVector{Indices: make([]uint32, 0, len(hashes)), Values: make([]float32, 0, len(hashes))}
	for i := 0; i < len(hashes); {
		j := i + 1
		for j < len(hashes) && hashes[j] == hashes[i] {
			j++
		}
		v.Indices = append(v.Indices, hashes[i])
		v.Values = append(v.Values, float32(TF(j-i, len(terms))))
		i = j
	}
	return v
}

// hashAll returns the terms' hashes, sorted.
func hashAll(terms []string) []uint32 {
	if len(terms) == 0 {
		return nil
	}
	hashes := make([]uint32, len(terms))
	for i, t := range terms {
		hashes[i] = Hash(t)
	}
	slices.Sort(hashes)
	return hashes
}
