package topics

import "math"

// dendrogram is an average-linkage merge tree over unit vectors. Nodes
// 0..n-1 are the vectors; node n+k is the k-th merge.
type dendrogram struct {
	n           int
	left, right []int
	sim         []float64 // similarity at which merge k happened
}

func (d *dendrogram) root() int         { return 2*d.n - 2 }
func (d *dendrogram) isLeaf(x int) bool { return x < d.n }

// leaves lists the vectors beneath x in ascending order of merge structure.
func (d *dendrogram) leaves(x int) []int {
	if d.isLeaf(x) {
		return []int{x}
	}
	return append(d.leaves(d.left[x-d.n]), d.leaves(d.right[x-d.n])...)
}

// cut returns the largest subtrees beneath x whose members are on average at
// least threshold alike. Average linkage is monotone (a merge is never more
// alike than the merges below it), so this is a clean cut.
func (d *dendrogram) cut(x int, threshold float64) []int {
	if d.isLeaf(x) || d.sim[x-d.n] >= threshold {
		return []int{x}
	}
	return append(d.cut(d.left[x-d.n], threshold), d.cut(d.right[x-d.n], threshold)...)
}

// split undoes the least alike merges among parts until there are k parts
// (or only single vectors are left).
func (d *dendrogram) split(parts []int, k int) []int {
	out := append([]int(nil), parts...)
	for len(out) < k {
		worst := -1
		for i, x := range out {
			if d.isLeaf(x) {
				continue
			}
			if worst < 0 || d.sim[x-d.n] < d.sim[out[worst]-d.n] {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		x := out[worst]
		out[worst] = d.left[x-d.n]
		out = append(out, 0)
		copy(out[worst+2:], out[worst+1:])
		out[worst+1] = d.right[x-d.n]
	}
	return out
}

// averageLinkage builds the dendrogram with the nearest-neighbour chain
// algorithm: O(n²) time and memory, against O(n³) for repeatedly finding the
// closest pair. Ties go to the chain's previous element, then to the lower
// slot, so the tree depends only on the order of vs.
func averageLinkage(vs [][]float32) *dendrogram {
	n := len(vs)
	d := &dendrogram{n: n}
	if n < 2 {
		return d
	}
	sim := make([]float64, n*n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			s := float64(dot(vs[i], vs[j]))
			sim[i*n+j], sim[j*n+i] = s, s
		}
	}
	active := make([]bool, n)
	node := make([]int, n) // dendrogram node held by each slot
	size := make([]int, n)
	for i := range n {
		active[i], node[i], size[i] = true, i, 1
	}
	var chain []int
	for merged := 0; merged < n-1; {
		if len(chain) == 0 {
			for i := range n {
				if active[i] {
					chain = append(chain, i)
					break
				}
			}
		}
		a := chain[len(chain)-1]
		prev := -1
		if len(chain) >= 2 {
			prev = chain[len(chain)-2]
		}
		b, best := -1, math.Inf(-1)
		for c := range n {
			if c == a || !active[c] {
				continue
			}
			if s := sim[a*n+c]; s > best || (s == best && c == prev) {
				b, best = c, s
			}
		}
		if b != prev {
			chain = append(chain, b)
			continue
		}
		chain = chain[:len(chain)-2]
		keep, drop := min(a, b), max(a, b)
		l, r := min(node[a], node[b]), max(node[a], node[b])
		d.left, d.right, d.sim = append(d.left, l), append(d.right, r), append(d.sim, best)
		nk, nd := float64(size[keep]), float64(size[drop])
		for c := range n {
			if !active[c] || c == keep || c == drop {
				continue
			}
			s := (nk*sim[keep*n+c] + nd*sim[drop*n+c]) / (nk + nd)
			sim[keep*n+c], sim[c*n+keep] = s, s
		}
		active[drop] = false
		node[keep] = n + merged
		size[keep] += size[drop]
		merged++
	}
	return d
}
