package query

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/promptctx"
)

func TestStatsCountsTokens(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	tok, err := promptctx.NewBPE()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	mk := func(id, domain, content string) memory.Memory {
		vecs, _ := termEmbedder{}.Embed(ctx, []string{content})
		return memory.Memory{ID: id, Tenant: "acme", Namespace: memory.DefaultNamespace, Domain: domain, Content: content,
			Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, CreatedAt: now, ModifiedAt: now, Vector: vecs[0]}
	}
	mems := []memory.Memory{
		mk("a", "general", "The build server runs on Debian and deploys every night."),
		mk("b", "general", "Ünïcödé and emoji 🚀 count as several tokens."),
		mk("c", "tool-usage", "Always run make test before committing."),
	}
	if err := h.store.Upsert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	want := func(ms []memory.Memory) (int, map[string]int) {
		total, by := 0, map[string]int{}
		for _, m := range ms {
			n := tok.Count(m.Content)
			total += n
			by[m.Domain] += n
		}
		return total, by
	}
	check := func(ms []memory.Memory) {
		t.Helper()
		var s Stats
		if code := h.do(t, http.MethodGet, "/v1/stats?tenant=acme", nil, &s); code != http.StatusOK {
			t.Fatalf("stats answered %d", code)
		}
		total, by := want(ms)
		if s.Tokens != total || len(s.DomainTokens) != len(by) {
			t.Fatalf("tokens %d by domain %v, want %d and %v", s.Tokens, s.DomainTokens, total, by)
		}
		for d, n := range by {
			if s.DomainTokens[d] != n {
				t.Fatalf("tokens by domain %v, want %v", s.DomainTokens, by)
			}
		}
		if s.Tokens <= 0 || s.Tokens >= s.Chars {
			t.Fatalf("tokens %d for %d characters: not a BPE count", s.Tokens, s.Chars)
		}
	}
	check(mems)
	check(mems) // counted from the cache this time
	mems[2] = mk("c", "tool-usage", "Always run make test and go vet before committing to main, without exception.")
	if err := h.store.Upsert(ctx, mems[2:]); err != nil {
		t.Fatal(err)
	}
	check(mems) // an edited memory is counted afresh
}
