package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

const wait = 60 * time.Second

// stored polls until the memory id is readable.
func stored(t *testing.T, c *client.Client, tenant, id string) memory.Memory {
	t.Helper()
	var m memory.Memory
	clienttest.Eventually(t, wait, "memory "+id+" stored", func() error {
		var err error
		m, err = c.GetMemory(context.Background(), tenant, id)
		return err
	})
	return m
}

func TestClient(t *testing.T) {
	a := clienttest.Start(t)
	ctx := context.Background()
	c := client.New(a.Web().URL()+"/", client.WithTenant("acme"))

	t.Run("ingest and recall", func(t *testing.T) {
		resp, err := c.Ingest(ctx, memory.Event{ID: "turn-1", Type: memory.EventTurn, SessionID: "s1", Subject: "alice", Role: "user",
			Content: "I prefer tabs over spaces, and always run make test before committing"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Accepted != 1 || !slices.Equal(resp.IDs, []string{"turn-1"}) {
			t.Fatalf("ingest answered %+v", resp)
		}
		clienttest.Eventually(t, wait, "recall the tabs preference", func() error {
			r, err := c.Recall(ctx, client.RecallRequest{Query: "how should I indent code?"})
			if err != nil {
				return err
			}
			if len(r.Memories) == 0 || !strings.Contains(strings.ToLower(r.Memories[0].Memory.Content), "tabs") {
				return fmt.Errorf("recalled %d memories, top not the tabs preference", len(r.Memories))
			}
			if r.Memories[0].Memory.Tenant != "acme" || !strings.Contains(r.Context, "## Recalled Context") {
				return fmt.Errorf("top memory of tenant %q, context %q", r.Memories[0].Memory.Tenant, r.Context)
			}
			return nil
		})
		// The default tenant is only a default: another tenant sees nothing.
		r, err := c.Recall(ctx, client.RecallRequest{Tenant: "globex", Query: "how should I indent code?"})
		if err != nil || len(r.Memories) != 0 {
			t.Fatalf("tenant globex recalled %d memories (%v)", len(r.Memories), err)
		}
	})

	t.Run("learn, get, list, stats", func(t *testing.T) {
		imp := 0.8
		resp, err := c.Learn(ctx, query.LearnRequest{Namespace: "proj", MemoryInput: memory.MemoryInput{
			Key: "Deploy Target", Content: "Deploys go to the staging cluster first", Type: memory.TypeWorkflow, Importance: &imp, Tags: []string{"Deploy"}}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.ID == "" || resp.MemoryID == "" {
			t.Fatalf("learn answered %+v", resp)
		}
		m := stored(t, c, "", resp.MemoryID)
		if m.Tenant != "acme" || m.Namespace != "proj" || m.Key != "deploy-target" || m.Type != memory.TypeWorkflow ||
			m.Kind != memory.KindProcedural || !slices.Contains(m.Tags, "deploy") || m.Source != memory.SourceAPI {
			t.Fatalf("stored %+v", m)
		}
		st, err := c.Stats(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for m, err := range c.Memories(ctx, client.ListOptions{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, m.ID)
		}
		if st.Tenant != "acme" || st.Memories < 3 || len(all) != st.Memories || !slices.IsSorted(all) || !slices.Contains(all, resp.MemoryID) {
			t.Fatalf("stats %+v, listed %v", st, all)
		}
		page, err := c.ListMemories(ctx, client.ListOptions{Namespace: "proj"})
		if err != nil || len(page.Memories) != 1 || page.Next != "" {
			t.Fatalf("namespace proj lists %+v (%v)", page, err)
		}
	})

	t.Run("episode and procedure", func(t *testing.T) {
		ep, err := c.Episode(ctx, client.Episode{Summary: "Rolled back the billing deploy after the health check failed", Outcome: "Failure", Tags: []string{"billing"}})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := c.Procedure(ctx, client.Procedure{Name: "Release a version", Steps: []string{"run make test", " ", "tag the commit", "push the tag"}})
		if err != nil {
			t.Fatal(err)
		}
		e := stored(t, c, "", ep.MemoryID)
		if e.Type != memory.TypeEpisode || e.Kind != memory.KindEpisodic || !strings.HasSuffix(e.Content, "failed. Outcome: Failure") ||
			!slices.Equal(e.Tags, []string{"episode", "billing", "outcome:failure"}) {
			t.Fatalf("episode stored as %+v", e)
		}
		p := stored(t, c, "", pr.MemoryID)
		want := "Release a version:\n1. run make test\n2. tag the commit\n3. push the tag"
		if p.Type != memory.TypeProcedure || p.Kind != memory.KindProcedural || p.Key != "procedure/release-a-version" ||
			strings.Join(strings.Fields(p.Content), " ") != strings.Join(strings.Fields(want), " ") {
			t.Fatalf("procedure stored as %+v", p)
		}
		for _, bad := range []error{
			func() error { _, err := c.Episode(ctx, client.Episode{Outcome: "success"}); return err }(),
			func() error {
				_, err := c.Procedure(ctx, client.Procedure{Name: "x", Steps: []string{" "}})
				return err
			}(),
		} {
			if !errors.Is(bad, client.ErrInvalid) {
				t.Fatalf("invalid helper input gave %v, want ErrInvalid", bad)
			}
		}
	})

	t.Run("topics and consolidate", func(t *testing.T) {
		clienttest.Eventually(t, wait, "topic tree built", func() error {
			tr, err := c.Topics(ctx, query.TopicsRequest{})
			if err != nil {
				return err
			}
			if tr.Tenant != "acme" || tr.Memories == 0 || len(tr.Topics) == 0 {
				return fmt.Errorf("tree %+v", tr)
			}
			one, err := c.Topics(ctx, query.TopicsRequest{IDs: []string{tr.Topics[0].ID, "nope"}})
			if err != nil || len(one.Topics) != 1 || one.Topics[0].ID != tr.Topics[0].ID || !slices.Equal(one.Missing, []string{"nope"}) ||
				len(one.Details[tr.Topics[0].ID].Memories) == 0 {
				return fmt.Errorf("drill-down %+v (%v)", one, err)
			}
			return nil
		})
		ep, err := c.Consolidate(ctx, query.ConsolidateRequest{})
		if err != nil || ep.Tenant != "acme" || !strings.HasPrefix(ep.Epoch, "manual:") {
			t.Fatalf("consolidate answered %+v (%v)", ep, err)
		}
	})

	t.Run("forget", func(t *testing.T) {
		a, err := c.Learn(ctx, query.LearnRequest{MemoryInput: memory.MemoryInput{Key: "editor/theme", Content: "The editor theme is solarized dark"}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Learn(ctx, query.LearnRequest{Namespace: "other", MemoryInput: memory.MemoryInput{Key: "Editor/Theme", Content: "In the other project the theme is light"}})
		if err != nil {
			t.Fatal(err)
		}
		stored(t, c, "", a.MemoryID)
		stored(t, c, "", b.MemoryID)
		got, err := c.Forget(ctx, client.ForgetRequest{Key: " editor//THEME "})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got.Deleted)
		want := []string{a.MemoryID, b.MemoryID}
		slices.Sort(want)
		if !slices.Equal(got.Deleted, want) {
			t.Fatalf("forget by key deleted %v, want %v", got.Deleted, want)
		}
		if _, err := c.GetMemory(ctx, "", a.MemoryID); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("get after forget: %v, want ErrNotFound", err)
		}
		if _, err := c.Forget(ctx, client.ForgetRequest{Key: "editor/theme"}); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("forget of a key no memory has: %v, want ErrNotFound", err)
		}
		ep, err := c.Episode(ctx, client.Episode{Summary: "Fixed the flaky login test"})
		if err != nil {
			t.Fatal(err)
		}
		stored(t, c, "", ep.MemoryID)
		if got, err := c.Forget(ctx, client.ForgetRequest{ID: ep.MemoryID}); err != nil || !slices.Equal(got.Deleted, []string{ep.MemoryID}) {
			t.Fatalf("forget by id: %+v (%v)", got, err)
		}
		if _, err := c.Forget(ctx, client.ForgetRequest{ID: ep.MemoryID}); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("forget of a deleted id: %v, want ErrNotFound", err)
		}
		if _, err := c.Forget(ctx, client.ForgetRequest{ID: "x", Key: "y"}); !errors.Is(err, client.ErrInvalid) {
			t.Fatalf("forget with id and key: %v, want ErrInvalid", err)
		}
		if _, err := c.Forget(ctx, client.ForgetRequest{Key: "y", Subject: "carol"}); !errors.Is(err, client.ErrInvalid) {
			t.Fatalf("forget with key and subject: %v, want ErrInvalid", err)
		}
	})

	t.Run("forget a subject", func(t *testing.T) {
		var ids []string
		for _, in := range []query.LearnRequest{
			{Subject: "carol", MemoryInput: memory.MemoryInput{Content: "Carol lives in Porto"}},
			{Subject: "carol", MemoryInput: memory.MemoryInput{Content: "Carol's cat is called Miso"}},
			{Subject: "dave", MemoryInput: memory.MemoryInput{Content: "Dave rides a red bicycle to work"}},
		} {
			r, err := c.Learn(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			stored(t, c, "", r.MemoryID)
			ids = append(ids, r.MemoryID)
		}
		got, err := c.Forget(ctx, client.ForgetRequest{Subject: "carol"})
		if err != nil || got.Count != 2 {
			t.Fatalf("forget subject: %+v (%v), want 2 deleted", got, err)
		}
		for i, id := range ids {
			_, err := c.GetMemory(ctx, "", id)
			if gone := errors.Is(err, client.ErrNotFound); gone != (i < 2) {
				t.Fatalf("memory %d after the purge: %v", i, err)
			}
		}
		if n, err := c.PurgeSubject(ctx, "", "carol"); err != nil || n != 0 {
			t.Fatalf("second purge: %d (%v), want 0", n, err)
		}
		if _, err := c.PurgeSubject(ctx, "", ""); !errors.Is(err, client.ErrInvalid) {
			t.Fatalf("purge of no subject: %v, want ErrInvalid", err)
		}
	})

	t.Run("errors carry the server's field and code", func(t *testing.T) {
		_, err := c.Recall(ctx, client.RecallRequest{Query: "  "})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Field != "query" || apiErr.Code != "invalid_request" ||
			!errors.Is(err, client.ErrInvalid) || !strings.Contains(err.Error(), "POST /v1/recall answered 400") {
			t.Fatalf("empty query: %#v", err)
		}
		_, err = c.Ingest(ctx, memory.Event{Type: memory.EventTurn, SessionID: "s", Content: "no id"})
		if !errors.As(err, &apiErr) || apiErr.Field != "events[0].id" || apiErr.Code != "invalid_event" {
			t.Fatalf("event without id: %v", err)
		}
	})

	// context and resume are documented before the server has them: either
	// the answer has the documented shape or the error is a typed 404.
	t.Run("context and resume", func(t *testing.T) {
		cr, err := c.Context(ctx, client.ContextRequest{Query: "how should I indent code?", SessionID: "s1", Budget: 800})
		var apiErr *client.Error
		switch {
		case err == nil:
			if !strings.Contains(strings.ToLower(cr.Context), "tabs") || cr.Tokens <= 0 || len(cr.Memories) == 0 {
				t.Fatalf("context answered %+v", cr)
			}
		case !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Path != "/v1/context":
			t.Fatalf("context: %v", err)
		}
		rr, err := c.Resume(ctx, client.ResumeRequest{SessionID: "s1"})
		switch {
		case err == nil:
			if rr.Text == "" {
				t.Fatalf("resume answered %+v", rr)
			}
		case !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Path != "/v1/resume":
			t.Fatalf("resume: %v", err)
		}
	})

	t.Run("audit", func(t *testing.T) { testAudit(t, a, c) })
	t.Run("reindex status", func(t *testing.T) {
		if _, err := c.ReindexStatus(ctx, "nobody"); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("status of a tenant never reindexed: %v, want ErrNotFound", err)
		}
		resp, err := c.Reindex(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		clienttest.Eventually(t, wait, "reindex "+resp.Reindex+" done", func() error {
			st, err := c.ReindexStatus(ctx, "")
			if err != nil {
				return err
			}
			if st.ID != resp.Reindex || st.Tenant != "acme" {
				t.Fatalf("status of %s/%s, want acme/%s", st.Tenant, st.ID, resp.Reindex)
			}
			if st.State == "failed" {
				t.Fatalf("reindex failed: %s", st.Error)
			}
			if st.State != "done" || st.Done != st.Total {
				return fmt.Errorf("state %s, %d of %d", st.State, st.Done, st.Total)
			}
			return nil
		})
	})
}

func TestIngestBatches(t *testing.T) {
	a := clienttest.Start(t)
	c := client.New(a.Web().URL())
	events := make([]memory.Event, memory.MaxEventsBatch+5)
	for i := range events {
		events[i] = memory.Event{ID: fmt.Sprintf("e-%04d", i), Tenant: "bulk", SessionID: "s", Content: "hello number " + fmt.Sprint(i)}
	}
	resp, err := c.Ingest(context.Background(), events...)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Accepted != len(events) || len(resp.IDs) != len(events) || resp.IDs[len(events)-1] != "e-1004" {
		t.Fatalf("accepted %d of %d (%d ids)", resp.Accepted, len(events), len(resp.IDs))
	}
	if _, err := c.Ingest(context.Background()); err == nil {
		t.Fatal("ingest of no events succeeded")
	}
}
