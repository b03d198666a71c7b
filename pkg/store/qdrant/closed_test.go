package qdrant

import (
	"errors"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// After Close every call is store.ErrClosed, before any network use (the
// client points at a port nothing listens on and is never dialled).
func TestClosed(t *testing.T) {
	c, err := qdrant.NewClient(&qdrant.Config{Host: "127.0.0.1", Port: 1, SkipCompatibilityCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{cfg: DefaultConfig(), client: c, collection: "c", dim: 4}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := s.Close(); !errors.Is(err, store.ErrClosed) {
		t.Errorf("second close: %v, want store.ErrClosed", err)
	}
	ctx := t.Context()
	m := fullMemory()
	_, getErr := s.Get(ctx, "acme", m.ID)
	_, searchErr := s.Search(ctx, store.Query{Tenant: "acme", Vector: m.Vector, K: 1})
	_, textErr := s.SearchText(ctx, store.TextQuery{Tenant: "acme", Text: "dark", K: 1})
	_, countErr := s.Count(ctx, "acme", store.Filter{})
	_, tenantsErr := s.Tenants(ctx)
	for name, err := range map[string]error{
		"upsert":  s.Upsert(ctx, []memory.Memory{m}),
		"get":     getErr,
		"delete":  s.Delete(ctx, "acme", m.ID),
		"search":  searchErr,
		"text":    textErr,
		"scroll":  s.Scroll(ctx, "acme", store.Filter{}, func(memory.Memory) error { return nil }),
		"count":   countErr,
		"tenants": tenantsErr,
	} {
		if !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after close: %v, want store.ErrClosed", name, err)
		}
	}
}
