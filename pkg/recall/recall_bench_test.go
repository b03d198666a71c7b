package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// benchWords are the vocabulary of the benchmark's conversation.
var benchWords = strings.Fields(`hiking painting kids school trip guitar concert adoption shelter puppy
	garden recipe marathon camping beach museum pottery violin clarinet book club library promotion
	interview bakery cookies sunrise lake mountains festival parade volunteer charity dinner friends
	family grandma necklace sweden rome paris workshop class yoga studio taekwondo kickboxing shoes`)

// BenchmarkRecallConversation times one recall over a conversation of
// 20,000 turns in 1,000 sessions with the server's candidate depth (200
// dense, 100 lexical): both channels on the local store, fusion and every
// ranking stage; the query is embedded by a cheap deterministic model so
// that the recall's own work is what is measured. Allocations are reported:
// each candidate is a decoded memory, and copies of them add up.
func BenchmarkRecallConversation(b *testing.B) {
	ctx := context.Background()
	st, err := local.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	var batch []memory.Memory
	prev := ""
	for i := range 20000 {
		speaker := []string{"Ann", "Bob"}[i%2]
		words := make([]string, 6+rng.IntN(10))
		for j := range words {
			words[j] = benchWords[rng.IntN(len(benchWords))]
		}
		line := fmt.Sprintf("%s: I keep thinking about %s.", speaker, strings.Join(words, " and "))
		session := fmt.Sprint("s", i/20)
		if i%20 == 0 {
			prev = ""
		}
		vecs, _ := embedtest.Terms{}.Embed(ctx, []string{line})
		at := start.Add(time.Duration(i) * time.Minute)
		batch = append(batch, memory.Memory{ID: fmt.Sprint("t", i), Tenant: "acme", Namespace: memory.DefaultNamespace,
			Session: session, Key: "transcript/" + session, Content: line, Evidence: prev,
			Domain: "general", Type: memory.TypeEpisode, Kind: memory.KindEpisodic, Layer: memory.LayerBuffer,
			Importance: 0.2, Tags: []string{memory.TranscriptTag}, CreatedAt: at, ModifiedAt: at, ValidFrom: at, Vector: vecs[0]})
		prev = memory.TranscriptContext(line)
		if len(batch) == 1000 {
			if err := st.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	cfg := recall.Config{PerDomain: 10, MaxResults: 10, MinRelevance: 0.05, Candidates: 200}
	r, err := recall.New(cfg, st, embedtest.Terms{}, domains.Builtin(), func() time.Time { return start.AddDate(1, 0, 0) })
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{
		"What did Ann say about the pottery workshop and the violin?",
		"When did Bob go camping at the lake?",
		"What instruments does Ann play?",
		"Where did the kids go on the school trip?",
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := r.Recall(ctx, recall.Request{Tenant: "acme", Query: queries[i%len(queries)], K: 10, Dry: true}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
