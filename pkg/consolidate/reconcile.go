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

// supersedeByKey is the update rule that needs no LLM, at every LLM
// level: among the active memories of one namespace and subject with the
// same normalised key, the newest statement is the truth and the older
// ones are superseded by it (kept, with invalid_at and a link). Episodes
// are not keyed facts and are left alone. At llm-level full the model
// then reviews each supersession (a review pair, queued like any other):
// it may explain it, or refuse it with a reason, which restores the older
// memory; it never skips it silently.
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
	review := r.c.level() == llm.LevelFull
	for _, k := range keys {
		g := groups[k]
		slices.SortFunc(g, newerFirst)
		head := g[0]
		if !slices.ContainsFunc(g, func(m *memory.Memory) bool { return m.Epoch < r.seq && r.changed(m) }) {
			continue // nothing new under this key since the last epoch
		}
		for _, old := range g[1:] {
			if !r.mutable(old) {
				continue
			}
			r.supersede(old, head.ID, PhaseSupersede, fmt.Sprintf("a newer memory has the same key %q", head.Key), DecidedByRule, "")
			t := r.inherit(head, old)
			if review {
				r.found = append(r.found, pair{kind: pairReview, newer: head, older: old, sim: 1, since: r.seq, rule: true, took: t})
			}
		}
	}
}

// restore undoes a supersession the review model refused: the older
// memory is current again, and the newer gives back the reinforcement it
// took over from it (t, nil when unknown).
func (r *run) restore(old, newer *memory.Memory, t *took, reason, model string) {
	r.change(old, PhaseReconcile, "restore", reason, DecidedByLLM, model, func(m *memory.Memory) { m.Reopen() })
	if t == nil || newer == nil || !r.mutable(newer) {
		return
	}
	r.change(newer, PhaseReconcile, "give_back", "the older memory it superseded is current again: what it took over from it is given back", DecidedByLLM, model, t.giveBack)
}

// took is what a newer memory took over from an older one it superseded
// by key, so that a review keeping both can give it back: the counts it
// added, the importance and layer it had before when they were raised,
// and the tags it did not have.
type took struct {
	Access     int          `json:"a,omitempty"`
	Repetition int          `json:"r,omitempty"`
	Success    int          `json:"s,omitempty"`
	Importance *float64     `json:"i,omitempty"` // before, when raised
	RaisedTo   float64      `json:"ri,omitempty"`
	Layer      memory.Layer `json:"l,omitempty"` // before, when raised
	RaisedL    memory.Layer `json:"rl,omitempty"`
	Tags       []string     `json:"g,omitempty"`
}

// giveBack undoes what t took, as far as m has not moved on since: counts
// are subtracted (floored at zero), the importance and layer go back
// only while they are still what inheriting made them, added tags go.
func (t *took) giveBack(m *memory.Memory) {
	m.AccessCount = max(0, m.AccessCount-t.Access)
	m.RepetitionCount = max(0, m.RepetitionCount-t.Repetition)
	m.SuccessCount = max(0, m.SuccessCount-t.Success)
	if t.Importance != nil && m.Importance == t.RaisedTo {
		m.Importance = *t.Importance
	}
	if t.Layer != "" && m.Layer == t.RaisedL {
		m.Layer = t.Layer
	}
	if len(t.Tags) > 0 {
		m.Tags = removeTags(m.Tags, func(tag string) bool { return slices.Contains(t.Tags, tag) })
	}
}

// inherit makes winner take over loser's reinforcement (003: max
// importance, summed counts, union of tags) and returns what it took.
func (r *run) inherit(winner, loser *memory.Memory) *took {
	if !r.mutable(winner) {
		return nil
	}
	r.touch(winner)
	t := &took{Access: loser.AccessCount, Repetition: loser.RepetitionCount, Success: loser.SuccessCount}
	if loser.Importance > winner.Importance {
		before := winner.Importance
		t.Importance, t.RaisedTo = &before, loser.Importance
		winner.Importance = loser.Importance
	}
	winner.AccessCount += loser.AccessCount
	winner.RepetitionCount += loser.RepetitionCount
	winner.SuccessCount += loser.SuccessCount
	for _, tag := range loser.Tags {
		if !strings.HasPrefix(tag, TagGateRejected) && tag != TagTriaged && !slices.Contains(winner.Tags, tag) {
			winner.Tags = addTag(winner.Tags, tag)
			t.Tags = append(t.Tags, tag)
		}
	}
	if layerRank(loser.Layer) > layerRank(winner.Layer) {
		t.Layer, t.RaisedL = winner.Layer, loser.Layer
		winner.Layer = loser.Layer
	}
	winner.ModifiedAt = r.now
	return t
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

// pair is two memories the LLM is asked about: merge (near duplicates),
// reconcile (related, the first newer by at least ReconcileMinGap) or
// review (a same-key supersession the rule applied).
type pair struct {
	kind         string
	newer, older *memory.Memory
	sim          float64
	since        int64 // the epoch that found it
	tries        int   // failed calls so far
	// rule: the two have the same key or subject and attribute; the
	// model may only confirm the newer (update) or keep both, never write
	// a merged text that could carry the older value along.
	rule bool
	// took is what the newer took over from the older (review pairs).
	took *took
}

func (p pair) queued() queued {
	return queued{Kind: p.kind, Newer: p.newer.ID, Older: p.older.ID, Sim: p.sim, Since: p.since, Tries: p.tries, Took: p.took}
}

// queuePair adds a reconcile pair (newer first) found this epoch.
func (r *run) queuePair(newer, older *memory.Memory, sim float64) {
	r.found = append(r.found, pair{kind: pairReconcile, newer: newer, older: older, sim: sim, since: r.seq, rule: sameAttribute(newer, older)})
}

// sameAttribute reports two memories of one subject stating the same
// attribute: the same normalised key once a leading category ("user/",
// "preference/", any type name) is set aside, so "editor",
// "user/editor" and "preference/editor" are one attribute, while
// "service-a/pool-size" and "service-b/pool-size" are two.
func sameAttribute(a, b *memory.Memory) bool {
	if a.Subject != b.Subject {
		return false
	}
	ka, kb := attribute(a.Key), attribute(b.Key)
	return ka != "" && ka == kb
}

func attribute(key string) string {
	k := memory.NormalizeKey(key)
	if head, rest, ok := strings.Cut(k, "/"); ok && rest != "" && (memory.Type(head).Valid() || head == "user" || head == "profile") {
		return rest
	}
	return k
}

// findPairs looks up the neighbours of this epoch's changes through the
// store's search (never all pairs): near duplicates above MergeSim are
// merge pairs, related memories in (ReconcileMinSim, MergeSim) whose
// statements are at least ReconcileMinGap apart are reconcile pairs. A
// pair with the same key or subject and attribute, or near duplicates
// whose details conflict, are reconcile pairs whatever their cosine: an
// update is never merged. Pairs stay within a subject; across namespaces
// only with default (003 §7).
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
		hits, err := r.neighbours(ctx, m)
		if err != nil {
			return err
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
			case h.Score > r.rules.ReconcileMinSim && sameAttribute(newer, older):
				r.queuePair(newer, older, h.Score)
			case h.Score >= r.rules.MergeSim && samefact.Compare(*older, *newer).Verdict == samefact.Conflict:
				// Near duplicates with a differing number, date, name or
				// negation are an update, not a duplicate: reconcile.
				r.queuePair(newer, older, h.Score)
			case h.Score >= r.rules.MergeSim:
				r.found = append(r.found, pair{kind: pairMerge, newer: newer, older: older, sim: h.Score, since: r.seq})
			case h.Score > r.rules.ReconcileMinSim && validSince(newer)-validSince(older) >= r.rules.ReconcileMinGap.Nanoseconds():
				r.queuePair(newer, older, h.Score)
			}
		}
	}
	return nil
}

// pairCalls asks the LLM about the waiting pairs within MaxPairCalls:
// first the pairs carried from earlier epochs, oldest first, then this
// epoch's, the most similar first; reviews and reconciles before merges,
// so a backlog of near duplicates never holds an update back. What the
// budget leaves, and pairs whose call failed, are carried to the next
// epoch in the tenant's persistent queue (see queue.go); nothing is
// dropped silently.
func (r *run) pairCalls(ctx context.Context) {
	if r.c.level() == llm.LevelOff {
		return
	}
	waiting := r.waitingPairs()
	budget := r.rules.MaxPairCalls
	var carried, done []pair
	for _, kinds := range [][]string{{pairReview, pairReconcile}, {pairMerge}} {
		for _, p := range waiting {
			if !slices.Contains(kinds, p.kind) {
				continue
			}
			switch {
			case r.pairMoot(p):
				continue
			case budget == 0 || !r.mutable(p.newer) || !r.mutable(p.older):
				carried = append(carried, p)
				continue
			}
			budget--
			var ok bool
			switch p.kind {
			case pairMerge:
				ok = r.mergeLLM(ctx, p)
			default:
				ok = r.reconcileLLM(ctx, p)
			}
			if ok {
				done = append(done, p)
				continue
			}
			if p.tries++; p.tries >= maxPairTries {
				r.refuse(phaseOf(p), p.kind, fmt.Sprintf("no usable answer after %d calls; both memories stay as they are", p.tries),
					DecidedByLLM, "", []string{p.older.ID, p.newer.ID})
				continue
			}
			carried = append(carried, p)
		}
	}
	if over := len(carried) - r.rules.MaxQueuedPairs; r.rules.MaxQueuedPairs > 0 && over > 0 {
		// The newest beyond the cap are refused in the audit log, never
		// dropped silently; both memories of each stay as they are.
		for _, p := range carried[len(carried)-over:] {
			r.refuse(phaseOf(p), p.kind, fmt.Sprintf("the pair queue is full (%d)", r.rules.MaxQueuedPairs), DecidedByRule, "",
				[]string{p.older.ID, p.newer.ID})
		}
		carried = carried[:len(carried)-over]
	}
	r.queueOut = make([]queued, 0, len(carried)+len(done))
	for _, p := range carried {
		r.queueOut = append(r.queueOut, p.queued())
	}
	for _, p := range done {
		q := p.queued()
		q.Done = r.seq
		r.queueOut = append(r.queueOut, q)
	}
	r.stats.Queued = len(carried)
}

func phaseOf(p pair) string {
	if p.kind == pairMerge {
		return PhaseMerge
	}
	return PhaseReconcile
}

// waitingPairs is the carried queue (oldest first) followed by this
// epoch's pairs (the most similar first), each pair once. A queued pair
// an epoch asked about is dropped once that epoch committed; one asked
// about by this very epoch (a resumed try) is asked again.
func (r *run) waitingPairs() []pair {
	var out []pair
	seen := map[string]bool{}
	for _, q := range r.queueIn {
		if q.Done > 0 && q.Done < r.seq {
			continue
		}
		newer, older := r.mems[q.Newer], r.mems[q.Older]
		if newer == nil || older == nil || seen[q.key()] {
			continue
		}
		seen[q.key()] = true
		out = append(out, pair{kind: q.Kind, newer: newer, older: older, sim: q.Sim, since: q.Since, tries: q.Tries,
			rule: q.Kind == pairReview || sameAttribute(newer, older), took: q.Took})
	}
	found := slices.Clone(r.found)
	slices.SortStableFunc(found, func(a, b pair) int { return cmp.Compare(b.sim, a.sim) })
	for _, p := range found {
		if k := p.queued().key(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// pairMoot reports a pair there is nothing left to ask about: a memory
// gone or already replaced, or a review whose supersession changed since.
func (r *run) pairMoot(p pair) bool {
	if p.kind == pairReview {
		return p.older.SupersededBy != p.newer.ID || p.newer.Archived
	}
	return !active(p.newer) || !active(p.older)
}

// mergeLLM asks about a merge pair. It reports whether the pair got an
// answer (a failed call is retried in a later epoch).
func (r *run) mergeLLM(ctx context.Context, p pair) bool {
	var ans struct {
		Merge  *bool  `json:"merge"`
		Merged string `json:"merged"`
	}
	user := "A: " + p.older.Content + "\nB: " + p.newer.Content
	model, err := r.ask(ctx, "merge", llm.TierMerge, mergeSystem, user, &ans)
	ids := []string{p.older.ID, p.newer.ID}
	if err != nil {
		r.refuse(PhaseMerge, "merge", err.Error()+"; asked again in a later epoch", DecidedByLLM, model, ids)
		return false
	}
	if ans.Merge == nil || !*ans.Merge {
		r.record(Op{Phase: PhaseMerge, Op: "keep", MemoryIDs: ids, Applied: true, Reason: "the merge model kept them apart", Decider: DecidedByLLM, Model: model})
		return true
	}
	if err := checkMerged(ans.Merged, p.older, p.newer); err != nil {
		r.refuse(PhaseMerge, "merge", err.Error(), DecidedByLLM, model, ids)
		return true
	}
	r.combine(PhaseMerge, ans.Merged, fmt.Sprintf("near duplicates (cosine %.2f)", p.sim), DecidedByLLM, model, p.newer, p.older)
	r.stats.Merged++
	return true
}

// reconcileLLM asks about a reconcile or review pair. It reports whether
// the pair got an answer (a failed call is retried in a later epoch).
func (r *run) reconcileLLM(ctx context.Context, p pair) bool {
	var ans struct {
		Decision string `json:"decision"`
		Merged   string `json:"merged_content"`
		Reason   string `json:"reason"`
	}
	user := "OLDER: " + p.older.Content + "\nNEWER: " + p.newer.Content
	if p.rule {
		user += "\n(Both state the same attribute" + keyNote(p.newer) + ": decide update or keep_both, with a reason.)"
	}
	model, err := r.ask(ctx, "reconcile", llm.TierMerge, reconcileSystem, user, &ans)
	ids := []string{p.older.ID, p.newer.ID}
	if err != nil {
		r.refuse(PhaseReconcile, p.kind, err.Error()+"; asked again in a later epoch", DecidedByLLM, model, ids)
		return false
	}
	decision := strings.ToLower(strings.TrimSpace(ans.Decision))
	reason := strings.TrimSpace(ans.Reason)
	switch decision {
	case "update", "absorb", "keep_both", "keep":
	default:
		r.refuse(PhaseReconcile, p.kind, fmt.Sprintf("unknown decision %q; asked again in a later epoch", ans.Decision), DecidedByLLM, model, ids)
		return false
	}
	keep := decision == "keep_both" || decision == "keep"
	if p.kind == pairReview {
		return r.review(p, keep, reason, model)
	}
	if keep {
		r.record(Op{Phase: PhaseReconcile, Op: "keep", MemoryIDs: ids, Applied: true, Reason: orDefault(reason, "different aspects"), Decider: DecidedByLLM, Model: model})
		return true
	}
	why := fmt.Sprintf("%s (cosine %.2f)", decision, p.sim)
	if reason != "" {
		why += ": " + reason
	}
	if p.rule {
		// The same attribute: the newer statement is the truth as it was
		// said; the model explains, it does not rewrite.
		r.supersede(p.older, p.newer.ID, PhaseReconcile, why, DecidedByLLM, model)
		r.inherit(p.newer, p.older)
		return true
	}
	merged := strings.TrimSpace(ans.Merged)
	if merged == "" {
		merged = p.newer.Content // 003: fall back to the newer content
	}
	if err := validContent(merged); err != nil {
		r.refuse(PhaseReconcile, decision, err.Error(), DecidedByLLM, model, ids)
		return true
	}
	r.combine(PhaseReconcile, merged, why, DecidedByLLM, model, p.newer, p.older)
	return true
}

// review applies the model's answer about a same-key supersession: an
// update explains it; keep_both with a reason restores the older memory;
// a refusal without a reason leaves the rule's decision, logged.
func (r *run) review(p pair, keep bool, reason, model string) bool {
	ids := []string{p.older.ID, p.newer.ID}
	switch {
	case !keep:
		r.record(Op{Phase: PhaseReconcile, Op: "explain", MemoryIDs: ids, Applied: true,
			Reason: orDefault(reason, "the model confirmed the newer value"), Decider: DecidedByLLM, Model: model})
	case reason == "":
		r.refuse(PhaseReconcile, "restore", "the model kept both without a reason; the same-key update stands", DecidedByLLM, model, ids)
	default:
		r.restore(p.older, p.newer, p.took, "the model kept both: "+reason, model)
	}
	return true
}

func keyNote(m *memory.Memory) string {
	if m.Key == "" {
		return ""
	}
	return " " + m.Key
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
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
