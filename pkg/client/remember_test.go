package client_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
)

// TestRemember learns a memory given flat, waits for it to be stored, and
// recalls it: the whole round trip through the one import.
func TestRemember(t *testing.T) {
	a := clienttest.Start(t)
	ctx := context.Background()
	c := client.New(a.Web().URL(), client.WithTenant("acme"), client.WithNamespace("proj"))

	imp := 0.9
	resp, err := c.Remember(ctx, client.Remember{Key: "Editor Theme", Content: "The editor theme is solarized dark",
		Type: "preference", Importance: &imp, Tags: []string{"Editor"}, Wait: true, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ID == "" || resp.Stored == nil || !*resp.Stored || resp.Memory == nil {
		t.Fatalf("remember with wait answered %+v", resp)
	}
	m := resp.Memory
	if m.ID != resp.MemoryID || m.Tenant != "acme" || m.Namespace != "proj" || m.Key != "editor-theme" ||
		m.Type != "preference" || !slices.Contains(m.Tags, "editor") || m.Importance != 0.9 {
		t.Fatalf("stored %+v", m)
	}
	// The event id filled in makes a resend the same event, not a second memory.
	again, err := c.Learn(ctx, client.Remember{ID: resp.ID, Content: "The editor theme is solarized dark", Key: "Editor Theme",
		Type: "preference", Importance: &imp, Tags: []string{"Editor"}, Wait: true}.LearnRequest())
	if err != nil || again.MemoryID != resp.MemoryID {
		t.Fatalf("resend answered %+v (%v), want memory %s", again, err, resp.MemoryID)
	}
	r, err := c.Recall(ctx, client.RecallRequest{Query: "which editor theme?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Memories) == 0 || r.Memories[0].Memory.ID != resp.MemoryID {
		t.Fatalf("recall answered %+v", r.Memories)
	}
}
