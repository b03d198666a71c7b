package client_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// TestUsageFromServer: GET /v1/usage reads back what the usage module
// wrote; a recall's query embedding carries its input tokens, and an
// import's embeddings are the embedder's, not the query's (issue 20).
func TestUsageFromServer(t *testing.T) {
	a := clienttest.Start(t, func(cfg *app.Config) { cfg.Usage.FlushInterval = 50 * time.Millisecond })
	ctx := context.Background()
	c := client.New(a.Web().URL(), client.WithTenant("acme"))
	find := func(totals []usage.Total, component string) usage.Total {
		for _, tt := range totals {
			if tt.Component == component && tt.Model == minilm.ModelName {
				return tt
			}
		}
		return usage.Total{}
	}

	if _, err := c.Recall(ctx, client.RecallRequest{Query: "how should I indent Go code?", Dry: true}); err != nil {
		t.Fatal(err)
	}
	var before usage.Total
	clienttest.Eventually(t, time.Minute, "the recall's usage record", func() error {
		totals, err := c.Usage(ctx, "acme", 0)
		if err != nil {
			return err
		}
		q := find(totals, "query")
		if q.Calls == 0 {
			return fmt.Errorf("no query record yet: %+v", totals)
		}
		if q.InputTokens == 0 {
			return fmt.Errorf("query record without input tokens: %+v", q)
		}
		before = q
		return nil
	})

	var mems []memory.Memory
	for i := range 3 {
		m := storetest.FullMemory(fmt.Sprintf("usage-%d", i), "acme", time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC), nil)
		m.Content = fmt.Sprintf("imported fact number %d about the release train", i)
		m.Vector, m.EmbeddingModel = nil, ""
		mems = append(mems, m)
	}
	if resp, err := c.Import(ctx, "acme", bytes.NewReader(encode(t, mems))); err != nil || resp.Imported != 3 {
		t.Fatalf("import: %+v %v", resp, err)
	}
	clienttest.Eventually(t, time.Minute, "the import's usage under embedder", func() error {
		totals, err := c.Usage(ctx, "acme", time.Hour)
		if err != nil {
			return err
		}
		if e := find(totals, "embedder"); e.Calls == 0 || e.InputTokens == 0 {
			return fmt.Errorf("no embedder record with tokens for the import: %+v", totals)
		}
		if q := find(totals, "query"); q.Calls != before.Calls {
			return fmt.Errorf("the import was counted under query: %d calls, %d before", q.Calls, before.Calls)
		}
		return nil
	})

	if _, err := c.Usage(ctx, "acme", -time.Hour); err != nil {
		t.Fatalf("a negative since is not sent: %v", err)
	}
}
