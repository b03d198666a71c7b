package qdrant

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

var _ store.Adopter = (*Store)(nil)

// modelSuffix ends every collection name CollectionName makes.
var modelSuffix = regexp.MustCompile(`^[a-z0-9_-]+_[0-9]+$`)

// Siblings lists, sorted, the other collections under the store's prefix
// that CollectionName could have made: other embedding models' memories.
func (s *Store) Siblings(ctx context.Context) ([]string, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	names, err := s.client.ListCollections(cctx)
	if err != nil {
		return nil, s.wrap(err, "list qdrant collections")
	}
	return siblingNames(s.cfg.CollectionPrefix, s.collection, names), nil
}

// siblingNames keeps, sorted, the names other than own that CollectionName
// could have made under prefix.
func siblingNames(prefix, own string, names []string) []string {
	var out []string
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, prefix)
		if ok && n != own && modelSuffix.MatchString(rest) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Adopt moves the tenant's memories from the sibling collections (other
// embedding models) into this one, page by page: each page is written here
// without vectors (wait=true), skipping ids already here, and only then
// deleted from the sibling, so an interrupted run loses nothing and the
// next one carries on.
func (s *Store) Adopt(ctx context.Context, tenant string) (int, error) {
	siblings, err := s.Siblings(ctx)
	if err != nil {
		return 0, err
	}
	moved := 0
	for _, from := range siblings {
		n, err := s.adoptFrom(ctx, tenant, from)
		moved += n
		if err != nil {
			return moved, err
		}
		if n > 0 {
			s.log.InfoContext(ctx, "qdrant memories adopted", "tenant", tenant, "from", from, "memories", n)
		}
	}
	return moved, nil
}

func (s *Store) adoptFrom(ctx context.Context, tenant, from string) (int, error) {
	moved := 0
	for {
		if err := s.usable(ctx); err != nil {
			return moved, err
		}
		// Always the first page: the previous one was deleted.
		cctx, cancel := s.callCtx(ctx)
		pts, err := s.client.Scroll(cctx, &qdrant.ScrollPoints{
			CollectionName: from,
			Filter:         tenantFilter(tenant),
			Limit:          qdrant.PtrOf(uint32(scrollPage)),
			WithPayload:    qdrant.NewWithPayload(true),
			WithVectors:    qdrant.NewWithVectors(false),
		})
		cancel()
		if err != nil {
			return moved, s.wrap(err, "scroll tenant %s in %s to adopt", tenant, from)
		}
		if len(pts) == 0 {
			return moved, nil
		}
		mems := make([]memory.Memory, 0, len(pts))
		ids := make([]string, 0, len(pts))
		for _, p := range pts {
			m, err := decodePoint(p.GetId(), p.GetPayload(), nil)
			if err != nil {
				return moved, fmt.Errorf("adopt from %s: %w", from, err)
			}
			if m.Tenant != tenant {
				continue
			}
			ids = append(ids, m.ID)
			m.Vector, m.EmbeddingModel = nil, ""
			mems = append(mems, m)
		}
		here, err := s.present(ctx, ids)
		if err != nil {
			return moved, err
		}
		mems = slices.DeleteFunc(mems, func(m memory.Memory) bool { return here[m.ID] })
		if err := s.Upsert(ctx, mems); err != nil {
			return moved, fmt.Errorf("adopt %d memories of tenant %s from %s: %w", len(mems), tenant, from, err)
		}
		moved += len(mems)
		if err := s.deleteIn(ctx, from, tenant, ids); err != nil {
			return moved, err
		}
	}
}

// present reports which of ids are points of this collection.
func (s *Store) present(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	pts, err := s.points(ctx, ids, false)
	if err != nil {
		return nil, err
	}
	for _, p := range pts {
		out[p.GetId().GetUuid()] = true
	}
	return out, nil
}

// points reads the collection's points with these ids, with or without
// their payload, never their vectors.
func (s *Store) points(ctx context.Context, ids []string, payload bool) ([]*qdrant.RetrievedPoint, error) {
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	pts, err := s.client.Get(cctx, &qdrant.GetPoints{
		CollectionName: s.collection,
		Ids:            pointIDs(ids),
		WithPayload:    qdrant.NewWithPayload(payload),
		WithVectors:    qdrant.NewWithVectors(false),
	})
	if err != nil {
		return nil, s.wrap(err, "read %d points of %s", len(ids), s.collection)
	}
	return pts, nil
}
