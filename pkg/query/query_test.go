package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/recollect-dev/recollect/internal/embedtest"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// termEmbedder is the shared deterministic test embedder.
type termEmbedder = embedtest.Terms

const termDim = embedtest.TermDim

type harness struct {
	url      string
	store    *local.Store
	bus      *bus.Bus
	recaller *recall.Recaller
}

// newHarness is a query module over a real local store and embedded
// JetStream, with the term embedder as recall's model; setup, when given,
// configures the module before its routes are served.
func newHarness(t *testing.T, setup ...func(*Query)) *harness {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir()}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	r, err := recall.New(recall.Config{PerDomain: 3, MaxResults: 9, MinRelevance: 0.15, Candidates: 50}, st, termEmbedder{}, domains.Builtin(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Wait)
	q := New(r, st, b, nil, nil, quiet, time.Now)
	unwatch, err := b.Watch(bus.AllStored, q.OnStored)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unwatch() })
	for _, f := range setup {
		f(q)
	}
	mux := http.NewServeMux()
	q.Routes(func(pattern string, h http.Handler) { mux.Handle(pattern, h) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &harness{url: srv.URL, store: st, bus: b, recaller: r}
}

func (h *harness) do(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("decode %s %s answer %s: %v", method, path, data, err)
		}
	}
	return resp.StatusCode
}

func (h *harness) put(t *testing.T, ms ...memory.Memory) {
	t.Helper()
	for i := range ms {
		vecs, _ := termEmbedder{}.Embed(context.Background(), []string{ms[i].Content})
		ms[i].Vector = vecs[0]
		if ms[i].Tenant == "" {
			ms[i].Tenant = "acme"
		}
		if ms[i].Namespace == "" {
			ms[i].Namespace = memory.DefaultNamespace
		}
		ms[i].Domain, ms[i].Type, ms[i].Kind, ms[i].Layer = "general", memory.TypeFact, memory.KindSemantic, memory.LayerWorking
		if ms[i].CreatedAt.IsZero() {
			ms[i].CreatedAt = time.Now().UTC()
			ms[i].ModifiedAt = ms[i].CreatedAt
		}
	}
	if err := h.store.Upsert(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
}

func TestLearnWait(t *testing.T) {
	h := newHarness(t)
	const content = "the staging database lives on host db-stage-2"
	id := memory.MemoryID("acme", memory.DefaultNamespace, "", content)

	t.Run("no wait answers 202 at once", func(t *testing.T) {
		var resp LearnResponse
		code := h.do(t, http.MethodPost, "/v1/memories", map[string]any{"tenant": "acme", "content": content}, &resp)
		if code != http.StatusAccepted || resp.MemoryID != id || resp.Stored != nil || resp.Memory != nil {
			t.Fatalf("answered %d %+v, want 202 with memory_id %s only", code, resp, id)
		}
	})

	t.Run("wait times out without a memory", func(t *testing.T) {
		var resp LearnResponse
		code := h.do(t, http.MethodPost, "/v1/memories?wait=true&timeout=50ms", map[string]any{"tenant": "acme", "content": "never stored fact about quokkas"}, &resp)
		if code != http.StatusAccepted || resp.Stored == nil || *resp.Stored {
			t.Fatalf("answered %d %+v, want 202 with stored false", code, resp)
		}
	})

	t.Run("bad timeout", func(t *testing.T) {
		for _, to := range []string{"soon", "0s", "31s"} {
			if code := h.do(t, http.MethodPost, "/v1/memories", map[string]any{"tenant": "acme", "content": content, "wait": true, "timeout": to}, nil); code != http.StatusBadRequest {
				t.Fatalf("timeout %q answered %d, want 400", to, code)
			}
		}
	})

	t.Run("wait returns the memory once stored", func(t *testing.T) {
		// The learn's event on the bus says the handler is past publishing
		// and waiting; only then does the memory appear.
		events, err := h.bus.Conn().SubscribeSync(bus.ConvSubject("acme"))
		if err != nil {
			t.Fatal(err)
		}
		defer events.Unsubscribe()
		if err := h.bus.Conn().Flush(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var resp LearnResponse
		var code int
		go func() {
			defer close(done)
			code = h.do(t, http.MethodPost, "/v1/memories", map[string]any{"tenant": "acme", "id": "ev-1", "content": content, "wait": true, "timeout": "20s"}, &resp)
		}()
		if _, err := events.NextMsg(10 * time.Second); err != nil {
			t.Fatalf("learn event not published: %v", err)
		}
		select {
		case <-done:
			t.Fatalf("learn answered %d before the memory was stored", code)
		default:
		}
		// Stands in for the pipeline: the memory appears while the learn waits.
		h.put(t, memory.Memory{ID: id, Content: content, SourceIDs: []string{"acme:ev-1"}})
		<-done
		if code != http.StatusCreated || resp.Stored == nil || !*resp.Stored || resp.Merged || resp.Memory == nil {
			t.Fatalf("answered %d %+v, want 201 with the stored memory", code, resp)
		}
		if resp.ID != "ev-1" || resp.MemoryID != id || resp.Memory.ID != id || resp.Memory.Content != content || resp.Memory.Vector != nil {
			t.Fatalf("answer %+v does not carry memory %s without its vector", resp, id)
		}
	})

	t.Run("the embedder's stored event answers at once with the memory that took it", func(t *testing.T) {
		// The absorber does not list the event as a source: only the
		// stored event can say it took the learn (the fallback after the
		// wait would answer 202, stored false).
		h.put(t, memory.Memory{ID: "absorber-2", Content: "the staging database lives on db-stage-3"})
		events, err := h.bus.Conn().SubscribeSync(bus.ConvSubject("acme"))
		if err != nil {
			t.Fatal(err)
		}
		defer events.Unsubscribe()
		if err := h.bus.Conn().Flush(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var resp LearnResponse
		var code int
		go func() {
			defer close(done)
			code = h.do(t, http.MethodPost, "/v1/memories", map[string]any{"tenant": "acme", "id": "ev-3",
				"content": "staging database: db-stage-3", "wait": true, "timeout": "20s"}, &resp)
		}()
		if _, err := events.NextMsg(10 * time.Second); err != nil {
			t.Fatalf("learn event not published: %v", err)
		}
		other, _ := json.Marshal(memory.StoredEvent{Tenant: "acme", ID: "absorber-2", Op: memory.StoredReinforced, SourceEvent: "acme:ev-other"})
		ev, _ := json.Marshal(memory.StoredEvent{Tenant: "acme", ID: "absorber-2", Op: memory.StoredReinforced, SourceEvent: "acme:ev-3"})
		for i, data := range [][]byte{other, ev} {
			if err := h.bus.Publish(context.Background(), bus.Msg{Subject: bus.StoredSubject("acme"), ID: fmt.Sprintf("stored-%d", i), Data: data}); err != nil {
				t.Fatal(err)
			}
		}
		<-done
		if code != http.StatusCreated || resp.Stored == nil || !*resp.Stored || !resp.Merged || resp.MemoryID != "absorber-2" || resp.Memory == nil || resp.Memory.ID != "absorber-2" {
			t.Fatalf("answered %d %+v, want 201 merged into absorber-2", code, resp)
		}
	})

	t.Run("a near-duplicate that absorbed it is merged", func(t *testing.T) {
		const near = "the staging database lives on host db-stage-2 now"
		h.put(t, memory.Memory{ID: "absorber", Content: content + " (moved in May)", SourceIDs: []string{"acme:other", "acme:ev-2"}})
		var resp LearnResponse
		code := h.do(t, http.MethodPost, "/v1/memories", map[string]any{"tenant": "acme", "id": "ev-2", "content": near, "wait": true, "timeout": "50ms"}, &resp)
		if code != http.StatusCreated || !resp.Merged || resp.MemoryID != "absorber" || resp.Memory == nil || resp.Memory.ID != "absorber" {
			t.Fatalf("answered %d %+v, want 201 merged into absorber", code, resp)
		}
	})
}

func TestDeleteByNamespacePrefix(t *testing.T) {
	h := newHarness(t)
	h.put(t,
		memory.Memory{ID: "a", Namespace: "proj/a", Content: "fact a"},
		memory.Memory{ID: "b", Namespace: "proj/b", Content: "fact b"},
		memory.Memory{ID: "c", Namespace: "proj/c", Content: "fact c", Archived: true},
		memory.Memory{ID: "d", Namespace: "projx", Content: "fact d"},
		memory.Memory{ID: "e", Namespace: "other", Content: "fact e"},
		memory.Memory{ID: "f", Tenant: "globex", Namespace: "proj/a", Content: "fact f"},
	)
	sub, err := h.bus.Conn().SubscribeSync(bus.StoredSubject("acme"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.bus.Conn().Flush(); err != nil {
		t.Fatal(err)
	}

	if code := h.do(t, http.MethodDelete, "/v1/memories?tenant=acme", nil, nil); code != http.StatusBadRequest {
		t.Fatalf("delete without a prefix answered %d, want 400", code)
	}
	var resp DeleteResponse
	if code := h.do(t, http.MethodDelete, "/v1/memories?tenant=acme&namespace_prefix=proj/", nil, &resp); code != http.StatusOK || resp.Deleted != 3 {
		t.Fatalf("answered %d %+v, want 200 with 3 deleted", code, resp)
	}
	for _, tt := range []struct {
		tenant, id string
		kept       bool
	}{{"acme", "a", false}, {"acme", "b", false}, {"acme", "c", false}, {"acme", "d", true}, {"acme", "e", true}, {"globex", "f", true}} {
		_, err := h.store.Get(context.Background(), tt.tenant, tt.id)
		if (err == nil) != tt.kept {
			t.Fatalf("%s/%s: get error %v, kept should be %v", tt.tenant, tt.id, err, tt.kept)
		}
	}
	announced := map[string]bool{}
	for range 3 {
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("deletion announcements: %v (have %v)", err, announced)
		}
		var ev memory.StoredEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil || ev.Op != memory.StoredDeleted {
			t.Fatalf("announcement %s: %v", m.Data, err)
		}
		announced[ev.ID] = true
	}
	if !announced["a"] || !announced["b"] || !announced["c"] {
		t.Fatalf("announced %v, want a, b and c", announced)
	}
	if code := h.do(t, http.MethodDelete, "/v1/memories?tenant=acme&namespace_prefix=proj/", nil, &resp); code != http.StatusOK || resp.Deleted != 0 {
		t.Fatalf("second delete answered %d %+v, want 0 deleted", code, resp)
	}
}

func TestHistory(t *testing.T) {
	h := newHarness(t)
	created := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	h.put(t, memory.Memory{ID: "m1", Content: "uses tabs", SourceIDs: []string{"acme:ev-1", "acme:ev-2"}, Source: memory.SourceAPI,
		CreatedAt: created, ModifiedAt: created.Add(time.Hour), LastAccessed: created.Add(2 * time.Hour),
		RepetitionCount: 2, AccessCount: 5, SuccessCount: 1})
	var got History
	if code := h.do(t, http.MethodGet, "/v1/memories/m1/history?tenant=acme", nil, &got); code != http.StatusOK {
		t.Fatalf("history answered %d", code)
	}
	if got.Source != HistorySourceRecord || got.Origin != memory.SourceAPI || fmt.Sprint(got.SourceIDs) != "[acme:ev-1 acme:ev-2]" ||
		!got.CreatedAt.Equal(created) || !got.ModifiedAt.Equal(created.Add(time.Hour)) || !got.LastAccessed.Equal(created.Add(2*time.Hour)) ||
		got.RepetitionCount != 2 || got.AccessCount != 5 || got.SuccessCount != 1 {
		t.Fatalf("history = %+v", got)
	}
	if code := h.do(t, http.MethodGet, "/v1/memories/nope/history?tenant=acme", nil, nil); code != http.StatusNotFound {
		t.Fatalf("history of a missing memory answered %d, want 404", code)
	}
}

func TestRecallTouch(t *testing.T) {
	h := newHarness(t)
	h.put(t, memory.Memory{ID: "strong", Content: "indent go code with tabs"})
	count := func() int {
		m, err := h.store.Get(context.Background(), "acme", "strong")
		if err != nil {
			t.Fatal(err)
		}
		return m.AccessCount
	}
	var resp recall.Response
	if code := h.do(t, http.MethodPost, "/v1/recall", map[string]any{"tenant": "acme", "query": "indent go code with tabs", "dry": true}, &resp); code != http.StatusOK || len(resp.Memories) != 1 {
		t.Fatalf("dry recall answered %d with %d memories", code, len(resp.Memories))
	}
	h.recaller.Wait()
	if n := count(); n != 0 {
		t.Fatalf("access count after a dry recall = %d, want 0", n)
	}
	if code := h.do(t, http.MethodPost, "/v1/recall", map[string]any{"tenant": "acme", "query": "indent go code with tabs"}, &resp); code != http.StatusOK {
		t.Fatalf("recall answered %d", code)
	}
	h.recaller.Wait()
	if n := count(); n != 1 {
		t.Fatalf("access count after a recall = %d, want 1", n)
	}
}
