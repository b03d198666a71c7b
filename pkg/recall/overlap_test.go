package recall_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store"
)

// textFirst is a store whose lexical search reports that it started.
type textFirst struct {
	store.Store
	started chan struct{}
}

func (s textFirst) SearchText(ctx context.Context, q store.TextQuery) ([]store.Hit, error) {
	select {
	case s.started <- struct{}{}:
	default:
	}
	return s.Store.SearchText(ctx, q)
}

// waitingModel embeds only once the lexical search has started, or fails
// with err.
type waitingModel struct {
	embedtest.Terms
	started <-chan struct{}
	err     error
}

func (m waitingModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-m.started:
	case <-time.After(30 * time.Second):
		return nil, errors.New("the lexical search did not start while the query was embedded")
	}
	if m.err != nil {
		return nil, m.err
	}
	return m.Terms.Embed(ctx, texts)
}

// TestLexicalChannelRunsWhileTheQueryEmbeds: the lexical search needs no
// vector, so it starts before the query's embedding is done (a model that
// waits for it would otherwise never answer); a failed embedding is
// reported as the query's embedding, not as a failed search.
func TestLexicalChannelRunsWhileTheQueryEmbeds(t *testing.T) {
	st := storeOf(t, []mem{{id: "m1", content: "the staging database lives on db-stage-2"},
		{id: "m2", content: "deploys go out on tuesdays"}})
	cfg := recall.Config{PerDomain: 9, MaxResults: 9, MinRelevance: 0.05, Candidates: 50}
	recaller := func(modelErr error) *recall.Recaller {
		started := make(chan struct{}, 1)
		r, err := recall.New(cfg, textFirst{Store: st, started: started}, waitingModel{started: started, err: modelErr},
			domains.Builtin(), func() time.Time { return testNow })
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	resp, err := recaller(nil).Recall(context.Background(), recall.Request{Tenant: "acme", Query: "where is the staging database", Dry: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Memories) == 0 || resp.Memories[0].Memory.ID != "m1" {
		t.Fatalf("recall = %+v, want m1 first", resp.Memories)
	}

	_, err = recaller(errors.New("model down")).Recall(context.Background(), recall.Request{Tenant: "acme", Query: "where is the staging database", Dry: true})
	if err == nil || !strings.HasPrefix(err.Error(), "embed query: model down") {
		t.Fatalf("error = %v, want it to name the query's embedding", err)
	}
}
