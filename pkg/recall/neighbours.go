package recall

import (
	"sort"
	"time"
)

// Conversation turns mean more with their neighbours: an answer is often
// the turn right after a question that matches the query. A memory from a
// session therefore takes part of the relevance of candidates from the same
// session written within neighbourWindow of it.
const (
	neighbourWindow = 2 * time.Minute
	neighbourPull   = 0.5
)

func smoothNeighbours(cands []candidate, rels []float64) []float64 {
	type ref struct {
		i  int
		ts time.Time
	}
	bySession := map[string][]ref{}
	for i, c := range cands {
		if c.mem.Session == "" {
			continue
		}
		bySession[c.mem.Session] = append(bySession[c.mem.Session], ref{i, c.mem.CreatedAt})
	}
	out := append([]float64(nil), rels...)
	for _, refs := range bySession {
		if len(refs) < 2 {
			continue
		}
		sort.Slice(refs, func(a, b int) bool { return refs[a].ts.Before(refs[b].ts) })
		for k, me := range refs {
			best := 0.0
			for _, j := range []int{k - 1, k + 1} {
				if j < 0 || j >= len(refs) {
					continue
				}
				d := refs[j].ts.Sub(me.ts)
				if d < 0 {
					d = -d
				}
				if d <= neighbourWindow && rels[refs[j].i] > best {
					best = rels[refs[j].i]
				}
			}
			if best > rels[me.i] {
				out[me.i] = rels[me.i] + neighbourPull*(best-rels[me.i])
			}
		}
	}
	return out
}
