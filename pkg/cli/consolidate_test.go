package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

// TestConsolidateSaysWhatIsTooYoung: an epoch asked for on a fresh store
// says how many buffer memories are younger than the triage minimum age
// (issue 20: it did nothing visible and the 10-minute age was nowhere).
func TestConsolidateSaysWhatIsTooYoung(t *testing.T) {
	a := clienttest.Start(t)
	now := time.Now().UTC()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i, age := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Hour} {
		m := storetest.FullMemory(fmt.Sprintf("young-%d", i), "fresh", now.Add(-age), nil)
		m.Content = fmt.Sprintf("a buffer memory number %d", i)
		m.Layer, m.Archived, m.InvalidAt, m.ValidUntil, m.SupersededBy, m.Key = memory.LayerBuffer, false, nil, nil, "", ""
		m.ModifiedAt, m.LastAccessed, m.ValidFrom, m.Quarantine = m.CreatedAt, m.CreatedAt, m.CreatedAt, ""
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	if resp, err := client.New(a.Web().URL()).Import(context.Background(), "fresh", &buf); err != nil || resp.Imported != 3 {
		t.Fatalf("import: %+v %v", resp, err)
	}
	out := mustRun(t, "consolidate", "--url", a.Web().URL(), "--tenant", "fresh")
	if !strings.Contains(out, "requested for tenant fresh\n2 buffer memories are younger than 10m0s and wait for a later epoch's triage") {
		t.Fatalf("consolidate printed %q", out)
	}
	var resp client.ConsolidateResponse
	if err := json.Unmarshal([]byte(mustRun(t, "consolidate", "--url", a.Web().URL(), "--tenant", "fresh", "--json")), &resp); err != nil ||
		resp.TooYoung != 2 || resp.TriageMinAgeSeconds != 600 {
		t.Fatalf("consolidate --json: %+v %v", resp, err)
	}
}
