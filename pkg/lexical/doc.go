// Package lexical is Recollect's one lexical model: how text becomes terms,
// and how terms become BM25 sparse vectors that the local engine and Qdrant
// score the same way.
//
// # Terms
//
// Terms splits text into words (Unicode letters, digits and combining marks),
// lowercases them, drops English stopwords and single Latin letters, and
// stems English words with Porter2 (Snowball); "c++", "c#" and "f#" stay
// whole. Words joined by - _ . / : @
// (identifiers, paths, versions: "snake_case", "file.go", "pre-commit") give
// the whole joined form, unstemmed, and each part, so that both "file.go" and
// "file" find them. Camel case splits the same way: "getUserName" gives
// getusername, get, user and name; "HTTPServer" httpserver, http, server. An apostrophe stays inside its word ("don't", "user's").
// Han, Hiragana, Katakana and Hangul runs become overlapping character
// bigrams (a lone character stays a unigram), as Lucene's CJK analyzer does.
//
// # Sparse vectors and scores
//
// A term's index is Hash(term), FNV-1a over its UTF-8 bytes. The BM25 score
// of a document d for a query q is
//
//	score(q, d) = Σ over terms t in both  IDF(N, df(t)) · TF(tf(t, d), len(d))
//
// where len(d) counts d's terms (repeats included), N is how many documents
// of the tenant have at least one term and df(t) how many contain t. The
// score is split so that no side needs corpus statistics when it is built:
//
//   - a document stores Vector (or MemoryVector): one entry per distinct term,
//     value TF(tf, len), the saturated term frequency with length
//     normalised against the fixed AvgDocLen. It depends on the document
//     alone, so it is computed once at write time, by every store alike.
//   - a query is QueryVector: one entry per distinct term, value 1 (an
//     identifier's parts share a value of 1; a form of an irregular verb
//     also brings the verb's other forms at its value, irregular.go).
//   - the store multiplies each matching entry by IDF(N, df) at query time.
//
// That last step is what Qdrant does for a sparse vector configured with
// `modifier: idf` (SparseVectorParams{Modifier: Modifier_Idf}): its score is
// Σ query value · document value · ln(1 + (N − df + 0.5)/(df + 0.5)), with N
// the number of points that hold the sparse vector and df counted over them,
// the filter not applied. So a Qdrant adapter upserts MemoryVector(m) as the
// point's sparse vector, queries with QueryVector(text), and gets the local
// engine's scores, with one difference it must document or remove: Qdrant
// counts N and df over the whole collection, the local engine over the
// tenant. With one collection for every tenant, another tenant's documents
// shift the idf (the ranking within a tenant changes little when tenants
// write alike, but it does change, and it leaks corpus statistics between
// tenants).
//
// A fixed AvgDocLen rather than the corpus's running average is what keeps
// stored vectors valid as the corpus grows: Qdrant cannot re-weigh stored
// values, and the local engine does not either, so both rank alike.
package lexical
