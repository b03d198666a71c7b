package remote

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// plainStore hides the engine's conditional writes, as a Qdrant-backed
// server has none.
type plainStore struct{ store.Store }

// A client of a server whose store cannot write conditionally reads
// revision 0 and writes plainly: store.Update still works, as on any store.
func TestConditionalFallsBackToPlain(t *testing.T) {
	engine, err := local.Open(t.TempDir(), local.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = engine.Close() })
	ns := startNATS(t)
	srv, err := Serve(context.Background(), connect(t, ns), plainStore{engine}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	c := NewClient(connect(t, ns))
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := memory.Memory{ID: memory.MemoryID("t", "default", "", "x"), Tenant: "t", Namespace: "default", Content: "x",
		Domain: memory.DomainGeneral, Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerBuffer,
		Importance: 0.5, Confidence: 0.6, Source: memory.SourceAPI, CreatedAt: now, ModifiedAt: now}
	if err := c.Upsert(t.Context(), []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	got, rev, err := c.GetRevision(t.Context(), "t", m.ID)
	if err != nil || rev != 0 || got.ID != m.ID {
		t.Fatalf("get revision through a plain store: %v rev %d id %q", err, rev, got.ID)
	}
	out, err := store.Update(t.Context(), c, "t", m.ID, false, func(m *memory.Memory) (bool, error) {
		m.AccessCount = 5
		return true, nil
	})
	if err != nil || out.AccessCount != 5 {
		t.Fatalf("update through a plain store: %v %+v", err, out)
	}
	if stored, err := engine.Get(t.Context(), "t", m.ID); err != nil || stored.AccessCount != 5 {
		t.Fatalf("stored %+v, %v", stored, err)
	}
	if err := c.UpsertIf(t.Context(), []memory.Memory{m}, []uint64{12345}); err != nil {
		t.Fatalf("upsert if through a plain store: %v", err)
	}
}
