package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/scope"
)

// maxByKey bounds how many memories one key lookup returns (the newest);
// a key names one fact, so more than a handful means namespaces or
// subjects share it. maxKeyScan bounds how many it reads to choose them.
const (
	maxByKey   = 20
	maxKeyScan = 1000
)

// errEnough stops a scroll once maxKeyScan memories are read.
var errEnough = errors.New("enough memories")

// byKey returns the memories stored under req.Key within the request's
// filter, newest first, as results that explain they matched by key.
func (r *Recaller) byKey(ctx context.Context, req Request) ([]Result, error) {
	f := r.filter(req)
	f.Keys = []string{req.Key}
	var out []Result
	err := r.store.Scroll(ctx, req.Tenant, f, func(m memory.Memory) error {
		if req.Filters.FilePath != "" && !scope.Applies(m.Scope, req.Filters.FilePath) {
			return nil
		}
		m.Vector = nil
		out = append(out, Result{Memory: m, Score: 1, Relevance: 1, KeyMatch: true})
		if len(out) == maxKeyScan {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, fmt.Errorf("look up key %s: %w", req.Key, err)
	}
	sortNewest(out)
	return out[:min(len(out), maxByKey)], nil
}

// keyWords turns a path-like key into words to search for:
// "deploy/staging-target" → "deploy staging target".
func keyWords(key string) string {
	return strings.Join(strings.FieldsFunc(key, func(r rune) bool { return r == '/' || r == '-' || r == '.' || r == ':' }), " ")
}

// sortNewest orders key matches by last modification, newest first, then id.
func sortNewest(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int {
		if c := b.Memory.ModifiedAt.Compare(a.Memory.ModifiedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Memory.ID, b.Memory.ID)
	})
}
