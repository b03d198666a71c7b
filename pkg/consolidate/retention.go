package consolidate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// retention applies the seeds' caps and clean-ups, each as an archive:
// the memory keeps every field, stays searchable on request and leaves
// recall and prompts. Explicit memories (learn, MCP, "memory" events,
// import) are never archived by a policy, and core is never touched. The
// only deletes are archived memories past the operator's
// ArchivedRetention (off by default).
func (r *run) retention() {
	var inferred []*memory.Memory // active, inferred, not core: what policies may archive
	r.each(func(m *memory.Memory) {
		if active(m) && r.mutable(m) && !m.Explicit() && m.Layer != memory.LayerCore {
			inferred = append(inferred, m)
		}
	})
	done := map[string]bool{}
	budget := r.rules.MaxArchivePerEpoch
	arch := func(m *memory.Memory, policy, why string) {
		if done[m.ID] || budget <= 0 {
			return
		}
		budget--
		done[m.ID] = true
		r.archive(m, PhaseArchive, policy+": "+why)
		r.c.archived.WithLabelValues(policy).Inc()
	}

	// 003: buffer memories decayed below the drop threshold.
	for _, m := range inferred {
		if m.Layer == memory.LayerBuffer && m.Importance < r.rules.DropThreshold {
			arch(m, "decayed", fmt.Sprintf("importance %.3f below %.3f", m.Importance, r.rules.DropThreshold))
		}
	}
	// 001: provisional memories never confirmed.
	if r.rules.ProvisionalAge > 0 {
		for _, m := range inferred {
			if m.Confidence < r.rules.ProvisionalConf && m.RepetitionCount <= 1 && m.AccessCount == 0 && r.now.Sub(m.CreatedAt) > r.rules.ProvisionalAge {
				arch(m, "provisional", fmt.Sprintf("confidence %.2f, never reinforced, older than %s", m.Confidence, r.rules.ProvisionalAge))
			}
		}
	}
	// 004: stale, never used memories decayed below the floor.
	if r.rules.StaleImportance > 0 {
		for _, m := range inferred {
			if m.Importance < r.rules.StaleImportance && m.AccessCount == 0 && m.RepetitionCount == 0 && m.Layer == memory.LayerWorking {
				arch(m, "stale", fmt.Sprintf("importance %.3f below %.2f and never used", m.Importance, r.rules.StaleImportance))
			}
		}
	}
	// 003: the buffer capacity cap, lowest weight first.
	var buffer []*memory.Memory
	for _, m := range inferred {
		if m.Layer == memory.LayerBuffer && !done[m.ID] {
			buffer = append(buffer, m)
		}
	}
	r.capBy(buffer, r.rules.BufferCap, "buffer-cap", func(m *memory.Memory) float64 { return m.Importance + Reinforcement(m)/10 }, arch, done)
	// 002: the latest SubjectKeep per user subject, LoreKeep for lore.
	bySubject := map[string][]*memory.Memory{}
	for _, m := range inferred {
		if !done[m.ID] && m.Subject != "" {
			bySubject[m.Subject] = append(bySubject[m.Subject], m)
		}
	}
	subjects := make([]string, 0, len(bySubject))
	for s := range bySubject {
		subjects = append(subjects, s)
	}
	slices.Sort(subjects)
	for _, s := range subjects {
		keep := r.rules.SubjectKeep
		if s == memory.LoreSubject {
			keep = r.rules.LoreKeep
		}
		r.capBy(bySubject[s], keep, "subject-keep", func(m *memory.Memory) float64 { return float64(validSince(m)) }, arch, done)
	}
	// 000: the tenant cap, scored by a 90-day half-life and log2(access+1).
	if r.rules.TenantCap > 0 {
		n := 0
		r.each(func(m *memory.Memory) {
			if active(m) && !done[m.ID] {
				n++
			}
		})
		if over := n - r.rules.TenantCap; over > 0 {
			var left []*memory.Memory
			for _, m := range inferred {
				if !done[m.ID] {
					left = append(left, m)
				}
			}
			half := r.rules.PruneHalfLife.Hours()
			score := func(m *memory.Memory) float64 {
				return math.Pow(0.5, r.now.Sub(m.CreatedAt).Hours()/half) + math.Log2(float64(m.AccessCount)+1)
			}
			r.archiveLowest(left, min(over, len(left)), "tenant-cap", fmt.Sprintf("over the tenant cap of %d", r.rules.TenantCap), score, arch)
		}
	}
	// Operator retention: archived memories past ArchivedRetention are
	// deleted, each one logged.
	if r.rules.ArchivedRetention > 0 {
		r.each(func(m *memory.Memory) {
			if m.Archived && r.now.Sub(m.ModifiedAt) > r.rules.ArchivedRetention {
				r.deleted = append(r.deleted, m.ID)
				r.record(Op{Phase: PhaseRetention, Op: "delete", MemoryIDs: []string{m.ID}, Before: []memory.Memory{cloneMem(m)}, Applied: true,
					Reason: fmt.Sprintf("archived more than %s ago (archived-retention)", r.rules.ArchivedRetention), Decider: DecidedByOperator})
			}
		})
		r.stats.Deleted = len(r.deleted)
		r.c.retentionDeleted.Add(float64(len(r.deleted)))
	}
}

// capBy archives the lowest-scored of ms beyond keep (0 = no cap).
func (r *run) capBy(ms []*memory.Memory, keep int, policy string, score func(*memory.Memory) float64,
	arch func(*memory.Memory, string, string), done map[string]bool) {
	if keep <= 0 || len(ms) <= keep {
		return
	}
	r.archiveLowest(ms, len(ms)-keep, policy, fmt.Sprintf("over the cap of %d", keep), score, arch)
}

// archiveLowest archives the n lowest-scored of ms (ties by id).
func (r *run) archiveLowest(ms []*memory.Memory, n int, policy, why string, score func(*memory.Memory) float64,
	arch func(*memory.Memory, string, string)) {
	if n <= 0 {
		return
	}
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b *memory.Memory) int {
		if c := cmp.Compare(score(a), score(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, m := range ms[:n] {
		arch(m, policy, why)
	}
}
