// Package topics builds a tenant's topic tree from memory embeddings: the
// Topiary index that resume lists and topic drill-down reads.
//
// Build follows engram's Topiary (seed 003, §6) where it is concrete —
// assign 0.30, merge 0.55, leaves over 8 split unless coherent, at most 256
// leaves, up to 10 split/merge cycles, leaves of two or fewer absorbed at
// 0.40, at most 3 levels of parents with at most 8 children before
// subdivision, single-child parents pruned — but replaces its one-by-one
// insert, which compares every memory with every leaf, by a top-down split:
//
//  1. Split: starting from one cluster of everything, bisect (spherical
//     k-means, k=2, or 3 above 60 members; over 1024 members the centres come
//     from a sample) the cluster that falls furthest short of the coherence
//     its size calls for, until none falls short or the leaf budget is
//     reached. Coherence (mean pairwise cosine) follows from a cluster's
//     vector sum in O(d): no pairs are compared.
//  2. Cycle: memories less similar to the rest of their leaf than the assign
//     threshold move to the closest leaf that is similar enough (or, while
//     the budget has room, stand alone); leaves with alike centroids merge
//     when the result would not need splitting; if that freed budget, split
//     again. At most 10 cycles.
//  3. Budget and absorb: leaves past the budget fold into their closest kept
//     leaf; leaves under the minimum size join a close enough neighbour.
//  4. Hierarchy: an average-linkage tree over leaf centroids is cut where
//     topics stop being ParentThreshold alike; parents with too many children
//     are divided again along the same tree.
//  5. Naming, without a model: the words most distinctive of a topic's
//     memories (share of members squared × inverse document frequency over
//     all the tenant's memories, stopwords dropped), 2 to 4 of them, in the
//     order the texts use them.
//
// Cost for n memories of d dimensions and a leaf budget L: splitting is
// O(n·d·log L) times the k-means rounds (a few), each cycle O(n·d) plus
// O(outliers·L·d) plus O(L²) comparisons after an O(L²·d) start, the
// hierarchy O(L²·d), naming O(words). Nothing is O(n²): 10,000 memories of
// 384 dimensions take a fraction of a second of CPU.
//
// Memory: a Builder takes the memories one at a time, as a store scroll
// hands them over, and holds one unit float32 copy of each vector in
// fixed-size blocks (n·d·4 bytes, no reallocation) plus about 64 bytes of
// the rest; it lets the vectors go once the leaves are made, before the
// vocabulary (a few int32s a word) is built. Nothing else is O(n·L) or
// O(n·d): 100,000 memories of 384 dimensions peak at about 160 MB live.
//
// Determinism: items are put in id order first, every random choice comes
// from a generator seeded by the ids involved, and ties break on ids, so the
// same memories give the same tree in any input order. Topic ids derive from
// the ids of the memories beneath them, so a rebuild over unchanged data
// keeps every id and a change renews only the ids of the topics it touched.
package topics
