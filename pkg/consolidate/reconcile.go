package consolidate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/samefact"
	"github.com/recollect-dev/recollect/pkg/store"
)

// validSince is when a memory's statement became true: ValidFrom, else
// its creation.
func validSince(m *memory.Memory) (t int64) {
	if !m.ValidFrom.IsZero() {
		return m.ValidFrom.UnixNano()
	}
	return m.CreatedAt.UnixNano()
}

// newerFirst orders memories newest statement first, then by id.
func newerFirst(a, b *memory.Memory) int {
	if c := cmp.Compare(validSince(b), validSince(a)); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// supersedeByKey is the update rule that needs no LLM: among the active
// memories of one namespace and subject with the same normalised key, the
// newest statement is the truth and the older ones are superseded by it
// (kept, with invalid_at and a link). Episodes are not keyed facts and are
// left alone. At llm-level full the LLM judges such pairs in reconcile
// instead; at off and auto the rule decides (a shared key is a clear case).
func (r *run) supersedeByKey() {
	groups := map[string][]*memory.Memory{}
	r.each(func(m *memory.Memory) {
		if !active(m) || m.Key == "" || m.Kind == memory.KindEpisodic || m.Type == memory.TypeEpisode {
			return
		}
		k := m.Namespace + "\x00" + m.Subject + "\x00" + memory.NormalizeKey(m.Key)
		groups[k] = append(groups[k], m)
	})
	keys := make([]string, 0, len(groups))
	for k, g := range groups {
		if len(g) > 1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		g := groups[k]
		slices.SortFunc(g, newerFirst)
		head := g[0]
		if !slices.ContainsFunc(g, func(m *memory.Memory) bool { return m.Epoch < r.seq && r.changed(m) }) {
			continue // nothing new under this key since the last epoch
		}
		if r.c.level() == llm.LevelFull {
			for _, old := range g[1:] {
				r.queuePair(head, old, 1)
			}
			continue
		}
		for _, old := range g[1:] {
			if !r.mutable(old) {
				continue
			}
			r.supersede(old, head.ID, PhaseSupersede, fmt.Sprintf("a newer memory has the same key %q", head.Key), DecidedByRule, "")
			r.inherit(head, old)
		}
	}
}

// inherit makes winner take over loser's reinforcement (003: max
// importance, summed counts, union of tags).
func (r *run) inherit(winner, loser *memory.Memory) {
	if !r.mutable(winner) {
		return
	}
	r.touch(winner)
	winner.Importance = max(winner.Importance, loser.Importance)
	winner.AccessCount += loser.AccessCount
	winner.RepetitionCount += loser.RepetitionCount
	winner.SuccessCount += loser.SuccessCount
	for _, t := range loser.Tags {
		if !strings.HasPrefix(t, TagGateRejected) && t != TagTriaged {
			winner.Tags = addTag(winner.Tags, t)
		}
	}
	if layerRank(loser.Layer) > layerRank(winner.Layer) {
		winner.Layer = loser.Layer
	}
	winner.ModifiedAt = r.now
}

func layerRank(l memory.Layer) int {
	switch l {
	case memory.LayerCore:
		return 3
	case memory.LayerWorking:
		return 2
	default:
		return 1
	}
}

// pair is two memories the LLM is asked about: merge (near duplicates) or
// reconcile (related, the first newer by at least ReconcileMinGap).
type pair struct {
	newer, older *memory.Memory
	sim          float64
}

// queuePair adds a reconcile pair (newer first).
func (r *run) queuePair(newer, older *memory.Memory, sim float64) {
	r.reconcileQueue = append(r.reconcileQueue, pair{newer: newer, older: older, sim: sim})
}

// findPairs looks up the neighbours of this epoch's changes through the
// store's search (never all pairs): near duplicates above MergeSim are
// merge pairs, related memories in (ReconcileMinSim, MergeSim) whose
// statements are at least ReconcileMinGap apart are reconcile pairs.
// Pairs stay within a subject; across namespaces only with default (003
// §7).
func (r *run) findPairs(ctx context.Context) error {
	seen := map[[2]string]bool{}
	var changed []*memory.Memory
	r.each(func(m *memory.Memory) {
		if len(m.Vector) > 0 && r.changed(m) {
			changed = append(changed, m)
		}
	})
	for _, m := range changed {
		if !active(m) {
			continue
		}
		f := store.Filter{}
		if m.Namespace != memory.DefaultNamespace {
			f.Namespaces = []string{m.Namespace, memory.DefaultNamespace}
		}
		if m.Subject != "" {
			f.Subjects = []string{m.Subject}
		}
		hits, err := r.c.store.Search(ctx, store.Query{Tenant: r.tenant, Vector: m.Vector, K: r.rules.Neighbours + 1, Filter: f})
		if err != nil {
			return fmt.Errorf("neighbours of %s: %w", m.ID, err)
		}
		for _, h := range hits {
			o := r.mems[h.Memory.ID]
			if o == nil || o.ID == m.ID || !active(o) || o.Subject != m.Subject || !r.mutable(o) {
				continue
			}
			k := [2]string{min(m.ID, o.ID), max(m.ID, o.ID)}
			if seen[k] {
				continue
			}
			seen[k] = true
			newer, older := m, o
			if newerFirst(newer, older) > 0 {
				newer, older = older, newer
			}
			switch {
			case h.Score >= r.rules.MergeSim && samefact.Compare(*older, *newer).Verdict == samefact.Conflict:
				// Near duplicates with a differing number, date, name or
				// negation are an update, not a duplicate: reconcile.
				r.queuePair(newer, older, h.Score)
			case h.Score >= r.rules.MergeSim:
				r.mergeQueue = append(r.mergeQueue, pair{newer: newer, older: older, sim: h.Score})
			case h.Score > r.rules.ReconcileMinSim && validSince(newer)-validSince(older) >= r.rules.ReconcileMinGap.Nanoseconds():
				r.queuePair(newer, older, h.Score)
			}
		}
	}
	return nil
}

// pairCalls asks the LLM about the queued pairs, merges first (at most
// half of MaxPairCalls), then reconciles, the most similar pairs first.
// Pairs beyond the budget are not asked about again unless one of their
// memories changes; the audit can still merge them.
func (r *run) pairCalls(ctx context.Context) {
	if r.c.level() == llm.LevelOff {
		return
	}
	bySim := func(a, b pair) int { return cmp.Compare(b.sim, a.sim) }
	slices.SortStableFunc(r.mergeQueue, bySim)
	slices.SortStableFunc(r.reconcileQueue, bySim)
	// Merges take at most half the budget, so updates are reconciled even
	// when many near duplicates wait; what merges leave goes to reconcile.
	budget := r.rules.MaxPairCalls
	merges := (budget + 1) / 2
	for _, p := range r.mergeQueue {
		if merges == 0 {
			break
		}
		if !r.pairOpen(p) {
			continue
		}
		merges--
		budget--
		r.mergeLLM(ctx, p)
	}
	for _, p := range r.reconcileQueue {
		if budget == 0 {
			break
		}
		if !r.pairOpen(p) {
			continue
		}
		budget--
		r.reconcileLLM(ctx, p)
	}
}

// pairOpen reports whether both memories are still active and changeable
// (an earlier pair of this epoch may have superseded one).
func (r *run) pairOpen(p pair) bool {
	return active(p.newer) && active(p.older) && r.mutable(p.newer) && r.mutable(p.older)
}

func (r *run) mergeLLM(ctx context.Context, p pair) {
	var ans struct {
		Merge  *bool  `json:"merge"`
		Merged string `json:"merged"`
	}
	user := "A: " + p.older.Content + "\nB: " + p.newer.Content
	model, err := r.ask(ctx, "merge", llm.TierMerge, mergeSystem, user, &ans)
	ids := []string{p.older.ID, p.newer.ID}
	if err != nil {
		r.refuse(PhaseMerge, "merge", err.Error(), DecidedByLLM, model, ids)
		return
	}
	if ans.Merge == nil || !*ans.Merge {
		r.record(Op{Phase: PhaseMerge, Op: "keep", MemoryIDs: ids, Applied: true, Reason: "the merge model kept them apart", Decider: DecidedByLLM, Model: model})
		return
	}
	if err := checkMerged(ans.Merged, p.older, p.newer); err != nil {
		r.refuse(PhaseMerge, "merge", err.Error(), DecidedByLLM, model, ids)
		return
	}
	r.combine(PhaseMerge, ans.Merged, fmt.Sprintf("near duplicates (cosine %.2f)", p.sim), DecidedByLLM, model, p.newer, p.older)
	r.stats.Merged++
}

func (r *run) reconcileLLM(ctx context.Context, p pair) {
	var ans struct {
		Decision string `json:"decision"`
		Merged   string `json:"merged_content"`
	}
	user := "OLDER: " + p.older.Content + "\nNEWER: " + p.newer.Content
	model, err := r.ask(ctx, "reconcile", llm.TierMerge, reconcileSystem, user, &ans)
	ids := []string{p.older.ID, p.newer.ID}
	if err != nil {
		r.refuse(PhaseReconcile, "reconcile", err.Error(), DecidedByLLM, model, ids)
		return
	}
	switch strings.ToLower(strings.TrimSpace(ans.Decision)) {
	case "update", "absorb":
	case "keep_both", "keep":
		r.record(Op{Phase: PhaseReconcile, Op: "keep", MemoryIDs: ids, Applied: true, Reason: "different aspects", Decider: DecidedByLLM, Model: model})
		return
	default:
		r.refuse(PhaseReconcile, "reconcile", fmt.Sprintf("unknown decision %q", ans.Decision), DecidedByLLM, model, ids)
		return
	}
	merged := strings.TrimSpace(ans.Merged)
	if merged == "" {
		merged = p.newer.Content // 003: fall back to the newer content
	}
	if err := validContent(merged); err != nil {
		r.refuse(PhaseReconcile, ans.Decision, err.Error(), DecidedByLLM, model, ids)
		return
	}
	r.combine(PhaseReconcile, merged, fmt.Sprintf("%s (cosine %.2f)", ans.Decision, p.sim), DecidedByLLM, model, p.newer, p.older)
}

// checkMerged is the sandbox's content rule for any merge: the merged text
// keeps at least half of the shortest input, and every detail (number,
// date, name, negation) of every input (package samefact).
func checkMerged(merged string, in ...*memory.Memory) error {
	if err := validContent(merged); err != nil {
		return err
	}
	shortest := -1
	for _, m := range in {
		if n := utf8.RuneCountInString(m.Content); shortest < 0 || n < shortest {
			shortest = n
		}
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(merged)); n*2 < shortest {
		return fmt.Errorf("merged text of %d characters is under half the shortest input (%d)", n, shortest)
	}
	for _, m := range in {
		if v := samefact.CompareDetails(merged, m.Content); !v.Folds() {
			return fmt.Errorf("merged text loses a detail of %s (%s: %s)", m.ID, v.Verdict, v.Reason)
		}
	}
	return nil
}

// combine writes content as the current truth of the memories in (the
// newest first). When it is one of them word for word, that one stays and
// the others are superseded by it; otherwise a new memory is made from
// them (the merged or reconciled statement, DerivedFrom all of them) and
// every input is superseded by it. Nothing is deleted: every input keeps
// its text and is reachable through the history.
func (r *run) combine(phase, content, reason, decider, model string, in ...*memory.Memory) *memory.Memory {
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	for _, keep := range in {
		if norm(keep.Content) != norm(content) {
			continue
		}
		for _, m := range in {
			if m != keep {
				r.supersede(m, keep.ID, phase, reason, decider, model)
				r.inherit(keep, m)
			}
		}
		return keep
	}
	winner := in[0]
	for _, m := range in[1:] {
		if m.Importance > winner.Importance || (m.Importance == winner.Importance && m.AccessCount > winner.AccessCount) {
			winner = m
		}
	}
	out := cloneMem(winner)
	out.Content = strings.TrimSpace(content)
	out.Namespace = winner.Namespace
	ids := make([]string, 0, len(in))
	for _, m := range in {
		ids = append(ids, m.ID)
		if m.Namespace == memory.DefaultNamespace {
			out.Namespace = memory.DefaultNamespace // 003: merged results stay in default
		}
	}
	slices.Sort(ids)
	out.ID = memory.DeterministicID(append([]string{"consolidate", phase, r.tenant}, ids...)...)
	out.DerivedFrom = ids
	out.Reopen()
	out.Archived = false
	out.AccessCount, out.RepetitionCount, out.SuccessCount = 0, 0, 0
	out.Tags = nil
	for _, m := range in {
		out.Importance = max(out.Importance, m.Importance)
		out.Confidence = max(out.Confidence, m.Confidence)
		out.AccessCount += m.AccessCount
		out.RepetitionCount += m.RepetitionCount
		out.SuccessCount += m.SuccessCount
		if layerRank(m.Layer) > layerRank(out.Layer) {
			out.Layer = m.Layer
		}
		if m.LastAccessed.After(out.LastAccessed) {
			out.LastAccessed = m.LastAccessed
		}
		if !m.ValidFrom.IsZero() && m.ValidFrom.After(out.ValidFrom) {
			out.ValidFrom = m.ValidFrom
		}
		for _, t := range m.Tags {
			if !strings.HasPrefix(t, TagGateRejected) && t != TagTriaged {
				out.Tags = addTag(out.Tags, t)
			}
		}
		for _, s := range m.SourceIDs {
			if len(out.SourceIDs) < memory.MaxSourceIDs && !slices.Contains(out.SourceIDs, s) {
				out.SourceIDs = append(out.SourceIDs, s)
			}
		}
	}
	made := r.create(out, phase, reason, decider, model)
	for _, m := range in {
		r.supersede(m, made.ID, phase, reason, decider, model)
	}
	return made
}
