package consolidate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// An epoch reads the tenant's memories when it starts and writes the ones
// it changed when it commits, seconds or minutes later. Other writers do
// not wait for it: the embedder reinforces a memory said again (counts,
// sources, a revival), records feedback, recall counts accesses, an
// operator quarantines or releases. Writing the epoch's copies as they are
// would undo those writes (a reinforcement acknowledged to its sender,
// lost). So the commit reads each changed memory again and rebases the
// epoch's change onto it: a field only the epoch changed takes the epoch's
// value, a field only another writer changed keeps theirs, and for a field
// both changed the rule of that field decides (rebase).
//
// On a store that writes conditionally (store.ConditionalWriter: the local
// engine, and the remote store serving it) the write is conditional on
// that read, and a memory written in between makes the epoch read and
// rebase it again (run.writeEach): nothing is overwritten. On another
// store (Qdrant) a write landing between the read and the write, a window
// of one round trip instead of the epoch's length, is still overwritten.

// rebaseGets is the most changed memories read back one by one (with
// their revisions from a ConditionalWriter); beyond it the commit scrolls
// the tenant once instead, with revisions from a store.RevisionScroller.
const rebaseGets = 256

// current reads the stored state of the memories with these ids, without
// vectors, and their revisions where the store writes conditionally (0
// otherwise); an id no longer stored is absent from both maps.
func (r *run) current(ctx context.Context, ids []string) (map[string]memory.Memory, map[string]uint64, error) {
	out := make(map[string]memory.Memory, len(ids))
	revs := make(map[string]uint64, len(ids))
	if rs, ok := r.c.store.(store.RevisionScroller); ok && len(ids) > rebaseGets {
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		err := rs.ScrollRevisions(ctx, r.tenant, store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory, rev uint64) error {
			if want[m.ID] {
				out[m.ID], revs[m.ID] = m, rev
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("read the memories of %s again before writing the epoch: %w", r.tenant, err)
		}
		return out, revs, nil
	}
	if _, conditional := r.c.store.(store.ConditionalWriter); conditional || len(ids) <= rebaseGets {
		for _, id := range ids {
			m, rev, err := store.Read(ctx, r.c.store, r.tenant, id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("read %s of %s again before writing the epoch: %w", id, r.tenant, err)
			}
			m.Vector, m.ChunkVectors = nil, nil
			out[id], revs[id] = m, rev
		}
		return out, revs, nil
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	scroll := r.c.store.Scroll
	if ms, ok := r.c.store.(store.MetaScroller); ok {
		scroll = ms.ScrollMeta
	}
	err := scroll(ctx, r.tenant, store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory) error {
		if want[m.ID] {
			m.Vector, m.ChunkVectors = nil, nil
			out[m.ID] = m
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read the memories of %s again before writing the epoch: %w", r.tenant, err)
	}
	return out, revs, nil
}

// rebase returns the epoch's version of a memory (mine, made from before)
// carried onto cur, the memory as stored now, and whether another writer
// had changed it since the epoch read it.
//
// Fields both changed: counts add both changes (a reinforcement during the
// epoch is not lost to a dedup fold, nor the fold to it); sources and tags
// take both sides' additions and removals; times take the later; the
// validity of the memory (superseded, archived, its bounds) as a whole
// goes to the other writer, whose change came after the observations the
// epoch judged by (a memory said again while an epoch superseded it is
// revived); a quarantine goes to the other writer too (an operator's
// decision); any other field keeps the epoch's decision.
func rebase(before, mine, cur memory.Memory) (memory.Memory, bool) {
	if same(before, cur) {
		return mine, false
	}
	out := cur.Clone()
	pick(&out.Namespace, before.Namespace, mine.Namespace)
	pick(&out.Subject, before.Subject, mine.Subject)
	pick(&out.Channel, before.Channel, mine.Channel)
	pick(&out.Session, before.Session, mine.Session)
	pick(&out.Key, before.Key, mine.Key)
	pick(&out.Content, before.Content, mine.Content)
	pick(&out.Domain, before.Domain, mine.Domain)
	pick(&out.Type, before.Type, mine.Type)
	pick(&out.Kind, before.Kind, mine.Kind)
	pick(&out.Evidence, before.Evidence, mine.Evidence)
	pick(&out.Source, before.Source, mine.Source)
	pick(&out.EmbeddingModel, before.EmbeddingModel, mine.EmbeddingModel)
	pick(&out.CreatedAt, before.CreatedAt, mine.CreatedAt)
	// The epoch's decisions win where both changed.
	decide(&out.Layer, before.Layer, mine.Layer)
	decide(&out.Importance, before.Importance, mine.Importance)
	decide(&out.Confidence, before.Confidence, mine.Confidence)
	if !slices.Equal(mine.Scope, before.Scope) {
		out.Scope = slices.Clone(mine.Scope)
	}
	if !slices.Equal(mine.DerivedFrom, before.DerivedFrom) {
		out.DerivedFrom = union(mine.DerivedFrom, cur.DerivedFrom)
	}
	// Counts: both changes.
	out.AccessCount = cur.AccessCount + mine.AccessCount - before.AccessCount
	out.RepetitionCount = cur.RepetitionCount + mine.RepetitionCount - before.RepetitionCount
	out.SuccessCount = cur.SuccessCount + mine.SuccessCount - before.SuccessCount
	out.SourceIDs = merge3(before.SourceIDs, mine.SourceIDs, cur.SourceIDs)
	out.Tags = merge3(before.Tags, mine.Tags, cur.Tags)
	out.ModifiedAt = later(mine.ModifiedAt, cur.ModifiedAt)
	out.LastAccessed = later(mine.LastAccessed, cur.LastAccessed)
	// Validity as one: the other writer's when both changed it.
	if validity(cur) == validity(before) {
		out.ValidFrom, out.InvalidAt, out.ValidUntil = mine.ValidFrom, clonePtr(mine.InvalidAt), clonePtr(mine.ValidUntil)
		out.SupersededBy, out.Archived = mine.SupersededBy, mine.Archived
	}
	if cur.Quarantine == before.Quarantine {
		out.Quarantine = mine.Quarantine
	}
	out.Epoch = mine.Epoch
	return out, true
}

// same reports whether a memory is unchanged between two reads of it.
func same(a, b memory.Memory) bool {
	return validity(a) == validity(b) && a.Namespace == b.Namespace && a.Subject == b.Subject && a.Channel == b.Channel &&
		a.Session == b.Session && a.Key == b.Key && a.Content == b.Content && a.Domain == b.Domain && a.Type == b.Type &&
		a.Kind == b.Kind && a.Layer == b.Layer && a.Importance == b.Importance && a.Confidence == b.Confidence &&
		a.AccessCount == b.AccessCount && a.RepetitionCount == b.RepetitionCount && a.SuccessCount == b.SuccessCount &&
		slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Scope, b.Scope) && a.Evidence == b.Evidence &&
		slices.Equal(a.SourceIDs, b.SourceIDs) && a.Source == b.Source && a.CreatedAt.Equal(b.CreatedAt) &&
		a.ModifiedAt.Equal(b.ModifiedAt) && a.LastAccessed.Equal(b.LastAccessed) && a.EmbeddingModel == b.EmbeddingModel &&
		slices.Equal(a.DerivedFrom, b.DerivedFrom) && a.Epoch == b.Epoch && a.Quarantine == b.Quarantine
}

// validityOf is the part of a memory that says whether and when it holds.
type validityOf struct {
	from, invalid, until time.Time
	by                   string
	archived             bool
}

func validity(m memory.Memory) validityOf {
	v := validityOf{from: m.ValidFrom.UTC(), by: m.SupersededBy, archived: m.Archived}
	if m.InvalidAt != nil {
		v.invalid = m.InvalidAt.UTC()
	}
	if m.ValidUntil != nil {
		v.until = m.ValidUntil.UTC()
	}
	return v
}

// pick sets *out (the other writer's value) to mine when only the epoch
// changed the field; when both did, the other writer's stays.
func pick[T comparable](out *T, before, mine T) {
	if mine != before && *out == before {
		*out = mine
	}
}

// decide sets *out to mine whenever the epoch changed the field.
func decide[T comparable](out *T, before, mine T) {
	if mine != before {
		*out = mine
	}
}

// merge3 is theirs with what mine added since before and without what
// mine removed, in theirs' order then mine's additions.
func merge3(before, mine, theirs []string) []string {
	out := make([]string, 0, len(theirs)+len(mine))
	for _, s := range theirs {
		if slices.Contains(before, s) && !slices.Contains(mine, s) {
			continue // removed by the epoch
		}
		out = append(out, s)
	}
	for _, s := range mine {
		if !slices.Contains(before, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func clonePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
