package qdrant

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

// addrEnv names the Qdrant gRPC address (host:port) the live tests use.
const addrEnv = "RECOLLECT_TEST_QDRANT_ADDR"

// liveConfig returns the address and a config whose collection prefix is
// unique to this run; the run's collections are deleted at cleanup.
func liveConfig(t *testing.T) (string, Config) {
	t.Helper()
	addr := os.Getenv(addrEnv)
	if addr == "" {
		t.Skipf("set %s to a Qdrant gRPC address (host:port) to run the store acceptance suite against Qdrant", addrEnv)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	cfg := DefaultConfig()
	cfg.CollectionPrefix = "recollect_test_" + hex.EncodeToString(b) + "_"
	cfg.Timeout = 30 * time.Second
	cfg.APIKey = os.Getenv("RECOLLECT_TEST_QDRANT_API_KEY")
	return addr, cfg
}

// dropOnCleanup deletes the collection of s at the end of the test.
func dropOnCleanup(t *testing.T, addr string, cfg Config, name string) {
	t.Cleanup(func() {
		host, port, _ := splitAddr(addr)
		c, err := qdrant.NewClient(&qdrant.Config{Host: host, Port: port, APIKey: cfg.APIKey, UseTLS: cfg.UseTLS, SkipCompatibilityCheck: true})
		if err != nil {
			t.Errorf("client to drop %s: %v", name, err)
			return
		}
		defer c.Close()
		if err := c.DeleteCollection(t.Context(), name); err != nil {
			t.Errorf("drop test collection %s: %v", name, err)
		}
	})
}

// TestAcceptance runs against a real Qdrant when RECOLLECT_TEST_QDRANT_ADDR
// is set: the store acceptance suite, then the collection checks.
func TestAcceptance(t *testing.T) {
	addr, cfg := liveConfig(t)
	t.Run("Suite", func(t *testing.T) { testSuite(t, addr, cfg) })
	t.Run("CollectionChecks", func(t *testing.T) { testCollectionChecks(t, addr, cfg) })
	t.Run("Adopt", func(t *testing.T) { testAdopt(t, addr, cfg) })
}

// testAdopt: after a model change, Adopt brings one tenant's memories from
// the old model's collection into the new one without vectors (found by
// BM25), keeps the new collection's own copy of an id, leaves other
// tenants alone, and a second call moves nothing.
func testAdopt(t *testing.T, addr string, cfg Config) {
	cfg.CollectionPrefix += "adopt_"
	ctx := t.Context()
	dropOnCleanup(t, addr, cfg, CollectionName(cfg.CollectionPrefix, "old", 4))
	dropOnCleanup(t, addr, cfg, CollectionName(cfg.CollectionPrefix, "new", 8))
	old, err := Open(ctx, cfg, addr, "old", 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	words := []string{"kubernetes", "espresso", "postgres", "vim"}
	var mems []memory.Memory
	for i, w := range words {
		for _, tenant := range []string{"acme", "globex"} {
			m := storetest.FullMemory(uuid.NewSHA1(uuid.NameSpaceURL, []byte(tenant+w)).String(), tenant, base, []float32{0.6, 0, 0.8, 0})
			m.Content, m.Key, m.EmbeddingModel = "The team talks about "+w, "", "old"
			m.Archived = i == 0 // archived memories move too
			if i != 1 {         // and superseded ones
				m.InvalidAt, m.SupersededBy = nil, ""
			}
			mems = append(mems, m)
		}
	}
	if err := old.Upsert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	nu, err := Open(ctx, cfg, addr, "new", 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nu.Close()
	if sib, err := nu.Siblings(ctx); err != nil || len(sib) != 1 || sib[0] != old.Collection() {
		t.Fatalf("siblings %v, %v; want [%s]", sib, err, old.Collection())
	}
	own := mems[len(mems)-2] // acme's vim, already written by the new model
	own.Vector, own.EmbeddingModel, own.Evidence = []float32{1, 0, 0, 0, 0, 0, 0, 0}, "new", "written by the new model"
	if err := nu.Upsert(ctx, []memory.Memory{own}); err != nil {
		t.Fatal(err)
	}
	n, err := nu.Adopt(ctx, "acme")
	if err != nil || n != len(words)-1 {
		t.Fatalf("adopt moved %d (%v), want %d", n, err, len(words)-1)
	}
	var got []memory.Memory
	if err := nu.Scroll(ctx, "acme", store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory) error {
		got = append(got, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(words) {
		t.Fatalf("%d acme memories in the new collection, want %d", len(got), len(words))
	}
	for _, m := range got {
		if m.ID == own.ID {
			if m.Evidence != own.Evidence || len(m.Vector) != 8 {
				t.Fatalf("the new collection's own copy was replaced: %+v", m)
			}
			continue
		}
		if len(m.Vector) != 0 || m.EmbeddingModel != "" {
			t.Fatalf("adopted %s keeps a vector (%d dims) or model %q", m.ID, len(m.Vector), m.EmbeddingModel)
		}
	}
	hits, err := nu.SearchText(ctx, store.TextQuery{Tenant: "acme", Text: "postgres", K: 3})
	if err != nil || len(hits) != 1 {
		t.Fatalf("lexical search of an adopted memory: %d hits, %v", len(hits), err)
	}
	if n, err := old.Count(ctx, "acme", store.Filter{IncludeArchived: true, IncludeSuperseded: true}); err != nil || n != 0 {
		t.Fatalf("%d acme memories left in the old collection (%v)", n, err)
	}
	if n, err := old.Count(ctx, "globex", store.Filter{IncludeArchived: true, IncludeSuperseded: true}); err != nil || n != len(words) {
		t.Fatalf("globex memories in the old collection: %d (%v), want %d untouched", n, err, len(words))
	}
	if n, err := nu.Adopt(ctx, "acme"); err != nil || n != 0 {
		t.Fatalf("second adopt moved %d (%v)", n, err)
	}
}

func testSuite(t *testing.T, addr string, cfg Config) {
	const dim = 8
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dropOnCleanup(t, addr, cfg, CollectionName(cfg.CollectionPrefix, "storetest", dim))
	storetest.Run(t, storetest.Harness{
		Dim: dim,
		Open: func(t *testing.T) store.Store {
			s, err := Open(t.Context(), cfg, addr, "storetest", dim, log)
			if err != nil {
				t.Fatalf("open qdrant store: %v", err)
			}
			return s
		},
		// Reopen connects again to the same collection: Qdrant is durable
		// on its own; this checks the store finds its data after a restart.
		Reopen: func(t *testing.T, s store.Store) store.Store {
			if err := s.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			s2, err := Open(t.Context(), cfg, addr, "storetest", dim, log)
			if err != nil {
				t.Fatalf("reopen qdrant store: %v", err)
			}
			return s2
		},
	})
}

// A collection of the right name with another vector width is refused with
// a clear error, and a reopened collection with its indexes is accepted.
func testCollectionChecks(t *testing.T, addr string, cfg Config) {
	name := CollectionName(cfg.CollectionPrefix, "mismatch", 8)
	dropOnCleanup(t, addr, cfg, name)
	host, port, _ := splitAddr(addr)
	c, err := qdrant.NewClient(&qdrant.Config{Host: host, Port: port, APIKey: cfg.APIKey, UseTLS: cfg.UseTLS, SkipCompatibilityCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateCollection(t.Context(), createRequest(name, 4)); err != nil {
		t.Fatalf("create a 4-dim collection: %v", err)
	}
	if s, err := Open(t.Context(), cfg, addr, "mismatch", 8, nil); !errors.Is(err, ErrSchema) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("open 8 dims over a 4-dim collection: %v, want ErrSchema", err)
	}

	okName := CollectionName(cfg.CollectionPrefix, "fresh", 8)
	dropOnCleanup(t, addr, cfg, okName)
	for range 2 { // created, then found and checked
		s, err := Open(t.Context(), cfg, addr, "fresh", 8, nil)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		info, err := c.GetCollectionInfo(t.Context(), okName)
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range indexes() {
			got, ok := info.GetPayloadSchema()[ix.field]
			if !ok || got.GetDataType() != ix.schema {
				t.Errorf("payload index %s = %v, want %s", ix.field, got, ix.schema)
			}
		}
		if !info.GetPayloadSchema()[fTenant].GetParams().GetKeywordIndexParams().GetIsTenant() {
			t.Error("tenant index is not the tenant key")
		}
		s.Close()
	}
}
