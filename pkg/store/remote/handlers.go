package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// afterScroller is an optional store method: Scroll starting after an id. A
// store that has it serves each scroll page in time proportional to the
// page; otherwise a page re-scrolls from the start and skips what the client
// has seen.
type afterScroller interface {
	ScrollAfter(ctx context.Context, tenant string, f store.Filter, after string, fn func(memory.Memory) error) error
}

// dispatch runs one request; a nil result leaves the reply's result empty.
func (s *Server) dispatch(ctx context.Context, op string, data []byte) (any, error) {
	switch op {
	case opUpsert:
		var req upsertRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		return nil, s.st.Upsert(ctx, fromWireAll(req.Memories))
	case opGet:
		var req getRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		m, err := s.st.Get(ctx, req.Tenant, req.ID)
		if err != nil {
			return nil, err
		}
		return getResult{Memory: toWire(m)}, nil
	case opDelete:
		var req deleteRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		return nil, s.st.Delete(ctx, req.Tenant, req.IDs...)
	case opPayload:
		var req payloadRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		return nil, s.st.UpdatePayload(ctx, req.Tenant, fromWireAll(req.Memories))
	case opSearch:
		return s.search(ctx, data)
	case opSearchText:
		return s.searchText(ctx, data)
	case opScroll:
		return s.scroll(ctx, data)
	case opCount:
		var req countRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		n, err := s.st.Count(ctx, req.Tenant, req.Filter)
		if err != nil {
			return nil, err
		}
		return countResult{Count: n}, nil
	case opTenants:
		ts, err := s.st.Tenants(ctx)
		if err != nil {
			return nil, err
		}
		return tenantsResult{Tenants: ts}, nil
	case opGetRevision, opUpsertIf, opPayloadIf:
		return s.conditional(ctx, op, data)
	case opSessions:
		sl, ok := s.st.(store.SessionLister)
		if !ok {
			return nil, requestError(codeUnsupported, "this store cannot list sessions")
		}
		var req sessionsRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		spans, err := sl.Sessions(ctx, req.Tenant, req.Filter)
		if err != nil {
			return nil, err
		}
		return sessionsResult{Sessions: spans}, nil
	case opCompact:
		c, ok := s.st.(store.Compactor)
		if !ok {
			return nil, requestError(codeUnsupported, "this store cannot compact")
		}
		return nil, c.Compact(ctx)
	default:
		return nil, requestError(codeUnsupported, fmt.Sprintf("unknown store operation %q", op))
	}
}

func decodeRequest(op string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return requestError(codeBadRequest, fmt.Sprintf("decode %s request: %v", op, err))
	}
	return nil
}

func (s *Server) search(ctx context.Context, data []byte) (any, error) {
	var req searchRequest
	if err := decodeRequest(opSearch, data, &req); err != nil {
		return nil, err
	}
	hits, err := s.st.Search(ctx, store.Query{Tenant: req.Tenant, Vector: req.Vector, K: req.K, Filter: req.Filter, Chunks: req.Chunks, Terms: req.Terms})
	if err != nil {
		return nil, err
	}
	return wireHits(hits), nil
}

func (s *Server) searchText(ctx context.Context, data []byte) (any, error) {
	var req searchTextRequest
	if err := decodeRequest(opSearchText, data, &req); err != nil {
		return nil, err
	}
	hits, err := s.st.SearchText(ctx, store.TextQuery{Tenant: req.Tenant, Text: req.Text, K: req.K, Filter: req.Filter})
	if err != nil {
		return nil, err
	}
	return wireHits(hits), nil
}

// wireHits encodes a search's hits, keeping nil apart from empty.
func wireHits(hits []store.Hit) searchResult {
	var out searchResult
	if hits != nil {
		out.Hits = make([]wireHit, len(hits))
	}
	for i, h := range hits {
		out.Hits[i] = wireHit{Memory: toWire(h.Memory), Score: score(h.Score), Terms: h.Terms}
	}
	return out
}

// scroll returns up to Limit memories with ids after After, and whether
// there are more.
func (s *Server) scroll(ctx context.Context, data []byte) (any, error) {
	var req scrollRequest
	if err := decodeRequest(opScroll, data, &req); err != nil {
		return nil, err
	}
	if req.Limit <= 0 || req.Limit > maxScrollPageSize {
		return nil, requestError(codeBadRequest, fmt.Sprintf("scroll limit must be 1-%d (got %d)", maxScrollPageSize, req.Limit))
	}
	var out scrollResult
	full := errors.New("page full")
	fn := func(m memory.Memory) error {
		if len(out.Memories) == req.Limit {
			out.More = true
			return full
		}
		if req.NoVectors {
			m.Vector, m.ChunkVectors = nil, nil
		}
		out.Memories = append(out.Memories, toWire(m))
		return nil
	}
	if req.Revisions {
		rs, ok := s.st.(store.RevisionScroller)
		if !ok {
			return nil, requestError(codeUnsupported, "this store cannot scroll with revisions")
		}
		err := rs.ScrollRevisions(ctx, req.Tenant, req.Filter, func(m memory.Memory, rev uint64) error {
			if req.After != "" && m.ID <= req.After {
				return nil
			}
			if err := fn(m); err != nil {
				return err
			}
			out.Revisions = append(out.Revisions, rev)
			return nil
		})
		if err != nil && !errors.Is(err, full) {
			return nil, err
		}
		return out, nil
	}
	scroll := s.st.Scroll
	if ms, ok := s.st.(store.MetaScroller); ok && req.NoVectors {
		scroll = ms.ScrollMeta
	}
	var err error
	if as, ok := s.st.(afterScroller); ok && req.After != "" && !req.NoVectors {
		err = as.ScrollAfter(ctx, req.Tenant, req.Filter, req.After, fn)
	} else {
		err = scroll(ctx, req.Tenant, req.Filter, func(m memory.Memory) error {
			if req.After != "" && m.ID <= req.After {
				return nil
			}
			return fn(m)
		})
	}
	if err != nil && !errors.Is(err, full) {
		return nil, err
	}
	return out, nil
}

// conditional serves the store.ConditionalWriter ops, refused as
// unsupported when the server's store cannot write conditionally (the
// client then reads and writes plainly).
func (s *Server) conditional(ctx context.Context, op string, data []byte) (any, error) {
	cw, ok := s.st.(store.ConditionalWriter)
	if !ok {
		return nil, requestError(codeUnsupported, "this store cannot write conditionally")
	}
	if op == opGetRevision {
		var req getRequest
		if err := decodeRequest(op, data, &req); err != nil {
			return nil, err
		}
		m, rev, err := cw.GetRevision(ctx, req.Tenant, req.ID)
		if err != nil {
			return nil, err
		}
		return getResult{Memory: toWire(m), Revision: rev}, nil
	}
	var req writeIfRequest
	if err := decodeRequest(op, data, &req); err != nil {
		return nil, err
	}
	if op == opUpsertIf {
		return nil, cw.UpsertIf(ctx, fromWireAll(req.Memories), req.Revisions)
	}
	return nil, cw.UpdatePayloadIf(ctx, req.Tenant, fromWireAll(req.Memories), req.Revisions)
}
