package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// TestMemoryTools drives learn-and-wait, access touches, history and
// deletion by namespace prefix through the single-process app.
func TestMemoryTools(t *testing.T) {
	a := startSingle(t, t.TempDir())
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	base := a.Web().URL()
	const (
		tenant   = "memtools"
		ns       = "proj/e2e"
		strong   = "I prefer tabs over spaces for indentation in Go code"
		sentinel = "The release train leaves every second Tuesday at noon"
	)

	learn := func(id, content string) memory.Memory {
		t.Helper()
		var resp query.LearnResponse
		code := postJSON(t, base+"/v1/memories?wait=true&timeout=30s", map[string]any{"tenant": tenant, "namespace": ns, "id": id, "content": content, "type": "preference"}, &resp)
		if code != http.StatusCreated || resp.Stored == nil || !*resp.Stored || resp.Memory == nil || resp.Memory.ID != resp.MemoryID {
			t.Fatalf("learn %s answered %d %+v, want 201 with the stored memory", id, code, resp)
		}
		if resp.Memory.Vector != nil {
			t.Fatalf("learn answer carries the vector")
		}
		return *resp.Memory
	}
	strongMem := learn("ev-strong", strong)
	sentinelMem := learn("ev-sentinel", sentinel)

	accesses := func(id string) int {
		var m memory.Memory
		if code := getJSON(t, base+"/v1/memories/"+id+"?tenant="+tenant, &m); code != http.StatusOK {
			t.Fatalf("get %s answered %d", id, code)
		}
		return m.AccessCount
	}
	recallFor := func(q string, dry bool) recall.Response {
		var resp recall.Response
		if code := postJSON(t, base+"/v1/recall", map[string]any{"tenant": tenant, "namespace": ns, "query": q, "dry": dry}, &resp); code != http.StatusOK {
			t.Fatalf("recall %q answered %d", q, code)
		}
		return resp
	}
	relevance := func(resp recall.Response, id string) float64 {
		for _, r := range resp.Memories {
			if r.Memory.ID == id {
				return r.Relevance
			}
		}
		return 0
	}
	waitAccesses := func(id string, want int) {
		t.Helper()
		eventually(t, 10*time.Second, fmt.Sprintf("%s accessed %d times", id, want), func() error {
			if n := accesses(id); n != want {
				return fmt.Errorf("access_count %d", n)
			}
			return nil
		})
	}

	// A recall touches its strong hit only.
	resp := recallFor(strong, false)
	if r := relevance(resp, strongMem.ID); r <= recall.TouchRelevance {
		t.Fatalf("strong hit relevance %v, want above %v (%+v)", r, recall.TouchRelevance, resp.Memories)
	}
	if r := relevance(resp, sentinelMem.ID); r > recall.TouchRelevance {
		t.Fatalf("sentinel relevance %v for an unrelated query", r)
	}
	waitAccesses(strongMem.ID, 1)
	if n := accesses(sentinelMem.ID); n != 0 {
		t.Fatalf("weak hit touched: access_count %d", n)
	}

	// A dry recall touches nothing: once a later recall's touch of the
	// sentinel has landed, the strong hit is still at one.
	recallFor(strong, true)
	recallFor(sentinel, false)
	waitAccesses(sentinelMem.ID, 1)
	if n := accesses(strongMem.ID); n != 1 {
		t.Fatalf("dry recall touched the strong hit: access_count %d", n)
	}

	// History comes from the record, with the learn's event as source.
	var h query.History
	if code := getJSON(t, base+"/v1/memories/"+strongMem.ID+"/history?tenant="+tenant, &h); code != http.StatusOK {
		t.Fatalf("history answered %d", code)
	}
	if h.Source != query.HistorySourceRecord || !slices.Contains(h.SourceIDs, tenant+":ev-strong") || h.AccessCount != 1 || h.LastAccessed.IsZero() || h.CreatedAt.IsZero() {
		t.Fatalf("history = %+v", h)
	}

	// Deleting the namespace prefix removes both.
	req, err := http.NewRequest(http.MethodDelete, base+"/v1/memories?tenant="+tenant+"&namespace_prefix=proj/", nil)
	if err != nil {
		t.Fatal(err)
	}
	dr, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer dr.Body.Close()
	var deleted query.DeleteResponse
	if err := json.NewDecoder(dr.Body).Decode(&deleted); err != nil || dr.StatusCode != http.StatusOK || deleted.Deleted != 2 {
		t.Fatalf("delete by prefix answered %d %+v (%v), want 2 deleted", dr.StatusCode, deleted, err)
	}
	var list query.ListResponse
	getJSON(t, base+"/v1/memories?tenant="+tenant+"&archived=true", &list)
	if len(list.Memories) != 0 {
		t.Fatalf("%d memories left after deleting the prefix", len(list.Memories))
	}
}
