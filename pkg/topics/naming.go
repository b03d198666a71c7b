package topics

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Naming limits: a name has 2 to 4 words; a third or fourth word joins only
// when it scores at least extraWordRatio of the best word and at least
// extraWordShare of the members use it, and up to nameCandidates words are
// kept to tell apart topics that would share a name.
const (
	minNameWords   = 2
	maxNameWords   = 4
	extraWordRatio = 0.5
	extraWordShare = 0.5
	nameCandidates = 8
	untitled       = "untitled"
)

// candidates ranks the words of a topic's memories by how distinctive they
// are: the squared share of members using the word times its inverse document
// frequency over all the tenant's memories. Squaring the share lets a word
// most members use beat a rarer one that only a few use ("deployment" over
// "run"). Words used by one member only count when fewer than two words are
// shared. It returns up to
// nameCandidates words, best first, with their scores and the share of
// members using each.
func (v *vocab) candidates(members []int) (terms []int32, scores, shares []float64) {
	var touched []int32
	for _, i := range members {
		for _, t := range v.uniq[i] {
			if v.count[t] == 0 {
				touched = append(touched, t)
			}
			v.count[t]++
		}
	}
	type scored struct {
		t            int32
		score, share float64
	}
	pick := func(least int32) []scored {
		var out []scored
		for _, t := range touched {
			if v.count[t] < least {
				continue
			}
			share := float64(v.count[t]) / float64(len(members))
			idf := math.Log(float64(len(v.docs)+1) / float64(v.df[t]))
			out = append(out, scored{t, share * share * idf, share})
		}
		return out
	}
	ranked := pick(min(2, int32(len(members))))
	if len(ranked) < minNameWords {
		ranked = pick(1)
	}
	for _, t := range touched {
		v.count[t] = 0
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(v.terms[a.t], v.terms[b.t])
	})
	ranked = ranked[:min(len(ranked), nameCandidates)]
	terms = make([]int32, len(ranked))
	scores, shares = make([]float64, len(ranked)), make([]float64, len(ranked))
	for i, r := range ranked {
		terms[i], scores[i], shares[i] = r.t, r.score, r.share
	}
	return terms, scores, shares
}

// nameWords is how many of the ranked candidates make the name: at least
// two, and a third or fourth when it scores close to the best and is shared
// by enough members.
func nameWords(scores, shares []float64) int {
	n := min(len(scores), minNameWords)
	for n < len(scores) && n < maxNameWords && scores[n] >= extraWordRatio*scores[0] && shares[n] >= extraWordShare {
		n++
	}
	return n
}

// phrase orders the chosen words as the members' texts tend to: by how many
// of the other words each one precedes in most texts (ties: earlier average
// position, then rank), so "docker compose" does not come out as "compose
// docker".
func (v *vocab) phrase(members []int, chosen []int32) string {
	if len(chosen) == 0 {
		return untitled
	}
	k := len(chosen)
	margin := make([]int, k*k) // texts with a before b, minus after
	pos := make([]float64, k)
	first := make([]int, k)
	for _, i := range members {
		doc := v.docs[i]
		for c, t := range chosen {
			first[c] = slices.Index(doc, t)
			if first[c] >= 0 {
				pos[c] += float64(first[c]) / float64(len(doc))
			}
		}
		for a := range k {
			for b := range k {
				if a != b && first[a] >= 0 && first[b] >= 0 && first[a] < first[b] {
					margin[a*k+b]++
					margin[b*k+a]--
				}
			}
		}
	}
	wins := make([]int, k)
	for a := range k {
		for b := range k {
			if margin[a*k+b] > 0 {
				wins[a]++
			}
		}
	}
	order := make([]int, k)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(wins[b], wins[a]); c != 0 {
			return c
		}
		return cmp.Compare(pos[a], pos[b])
	})
	ws := make([]string, k)
	for i, c := range order {
		ws[i] = v.terms[chosen[c]]
	}
	return strings.Join(ws, " ")
}

// nameTree names every topic, parents before children, and tells apart
// topics that would share a name by swapping their last word for their next
// candidate.
func nameTree(v *vocab, roots []*tnode) {
	taken := map[string]bool{}
	queue := slices.Clone(roots)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		queue = append(queue, n.children...)
		ranked, scores, shares := v.candidates(n.members)
		k := nameWords(scores, shares)
		chosen := ranked[:k]
		n.name = v.phrase(n.members, chosen)
		if taken[n.name] && k > 0 {
			for _, alt := range ranked[k:] {
				try := append(slices.Clone(chosen[:k-1]), alt)
				if name := v.phrase(n.members, try); !taken[name] {
					n.name = name
					break
				}
			}
		}
		taken[n.name] = true
	}
}
