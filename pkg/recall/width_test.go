package recall_test

import (
	"context"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// narrow is a query model of another width than the stored vectors, as
// while a tenant is being moved to a new model.
type narrow struct{ embedtest.Terms }

func (narrow) Dim() int      { return 64 }
func (narrow) Model() string { return "narrow" }
func (narrow) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := embedtest.Terms{}.Embed(ctx, texts)
	for i := range vecs {
		vecs[i] = vecs[i][:64]
	}
	return vecs, err
}

func TestRecallWithAnotherWidthIsLexical(t *testing.T) {
	st := storeOf(t, []mem{
		{id: "00000000-0000-0000-0000-000000000001", content: "deploys go through the staging cluster"},
		{id: "00000000-0000-0000-0000-000000000002", content: "the user prefers tabs over spaces"},
	})
	cfg := recall.Config{PerDomain: 9, MaxResults: 9, MinRelevance: 0.01, Candidates: 50}
	r, err := recall.New(cfg, st, narrow{}, domains.Builtin(), func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: "staging cluster deploys", Dry: true})
	if err != nil {
		t.Fatalf("recall with a query vector of another width: %v", err)
	}
	if got := ids(resp); len(got) == 0 || got[0] != "00000000-0000-0000-0000-000000000001" {
		t.Fatalf("recall answered %v, want the staging memory first (lexically)", got)
	}
	if s := resp.Memories[0].Semantic; s != 0 {
		t.Fatalf("semantic score %g without a usable dense channel, want 0", s)
	}
}
