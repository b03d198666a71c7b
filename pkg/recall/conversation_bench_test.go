package recall

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// conversationHits are n transcript candidates of a two-speaker
// conversation in sessions of 20 turns, each with its previous turn as
// context and a random unit vector of the built-in model's width.
func conversationHits(n int) ([]hit, []float32) {
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, 384)
		var s float32
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			s += v[i] * v[i]
		}
		for i := range v {
			v[i] /= float32(sqrt32(s))
		}
		return v
	}
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	out := make([]hit, n)
	prev := ""
	for i := range out {
		speaker := []string{"Ann", "Bob"}[i%2]
		content := fmt.Sprintf("%s: turn %d talks about hiking, painting and the kids' school trip, what about you?", speaker, i)
		if i%20 == 0 {
			prev = ""
		}
		m := memory.Memory{ID: fmt.Sprint(i), Session: fmt.Sprint("s", i/20), Content: content, Evidence: prev, Vector: vec(),
			Tags: []string{memory.TranscriptTag}, Importance: 0.2, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		prev = memory.TranscriptContext(content)
		out[i] = hit{candidate: candidate{mem: &m, semantic: rng.Float64(), lexical: rng.Float64(), dense: true}, rel: rng.Float64()}
	}
	return out, vec()
}

func sqrt32(x float32) float32 {
	z := x
	for range 20 {
		z = (z + x/z) / 2
	}
	return z
}

// BenchmarkConversationStages measures the conversation stages of one
// recall over 400 candidates (two channels of 200): turns in context,
// the speaker focus and replies above their questions.
func BenchmarkConversationStages(b *testing.B) {
	hits, q := conversationHits(400)
	cands := make([]candidate, len(hits))
	results := make([]Result, len(hits))
	for i, h := range hits {
		cands[i] = h.candidate
		results[i] = Result{Memory: *h.mem, Score: h.rel}
	}
	sortResults(results)
	b.ReportAllocs()
	for b.Loop() {
		inContext(q, cands)
		f := newSpeakerFocus("What did Ann say about the school trip?", hits)
		for _, h := range hits {
			_ = f.factor(h.mem)
		}
		answersFirst(results)
	}
}
