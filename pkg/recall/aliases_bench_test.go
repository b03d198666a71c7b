package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/alias"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// BenchmarkAliasLookup is the alias expansion's store call on a tenant of
// 50,000 memories (one in fifty saying "dog", one in a hundred "Max") and
// 40 aliases: the lexical search of the query's names and describing
// words among the alias memories.
func BenchmarkAliasLookup(b *testing.B) {
	ctx := context.Background()
	st, err := local.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	var batch []memory.Memory
	for i := range 50000 {
		words := make([]string, 12)
		for j := range words {
			words[j] = vocab[r.IntN(len(vocab))]
		}
		if i%50 == 0 {
			words[3] = "dog"
		}
		if i%100 == 0 {
			words[5] = "Max"
		}
		batch = append(batch, memory.Memory{ID: fmt.Sprintf("m%d", i), Tenant: "acme", Namespace: memory.DefaultNamespace,
			Content: strings.Join(words, " "), Domain: "general", Type: memory.TypeEpisode, Kind: memory.KindEpisodic,
			Layer: memory.LayerBuffer, Importance: 0.2, Tags: []string{memory.TranscriptTag}, CreatedAt: testNow, ModifiedAt: testNow})
	}
	for i := range 40 {
		a := alias.Alias{Name: fmt.Sprintf("Name%d", i), Word: []string{"dog", "cat", "sister", "project"}[i%4]}
		if i == 0 {
			a.Name = "Max"
		}
		a.Class = alias.ClassOf(a.Word)
		batch = append(batch, memory.Memory{ID: fmt.Sprintf("alias%d", i), Key: alias.Key(a), Tenant: "acme", Namespace: memory.DefaultNamespace,
			Content: alias.Content(a, ""), Domain: "general", Type: memory.TypeEntity, Kind: memory.KindSemantic, Layer: memory.LayerBuffer,
			Importance: 0.1, Tags: []string{alias.Tag}, CreatedAt: testNow.Add(-time.Hour), ModifiedAt: testNow.Add(-time.Hour)})
	}
	for i := 0; i < len(batch); i += 1000 {
		if err := st.Upsert(ctx, batch[i:min(i+1000, len(batch))]); err != nil {
			b.Fatal(err)
		}
	}
	q := store.TextQuery{Tenant: "acme", Text: "Max dog", K: 32, Filter: store.Filter{Namespaces: []string{memory.DefaultNamespace},
		Types: []memory.Type{memory.TypeEntity}, Tags: []string{alias.Tag}}}
	b.ResetTimer()
	for b.Loop() {
		hits, err := st.SearchText(ctx, q)
		if err != nil || len(hits) == 0 {
			b.Fatal(hits, err)
		}
	}
}
