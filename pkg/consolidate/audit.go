package consolidate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// auditDue reports whether this epoch runs the LLM audit: every epoch at
// llm-level full, every AuditEvery epochs at auto, never at off.
func (r *run) auditDue() bool {
	switch r.c.level() {
	case llm.LevelFull:
		return true
	case llm.LevelAuto:
		return r.rules.AuditEvery > 0 && r.seq%int64(r.rules.AuditEvery) == 0
	}
	return false
}

// auditOp is one operation the audit model proposes (003 §5).
type auditOp struct {
	Op         string   `json:"op"`
	ID         string   `json:"id"`
	IDs        []string `json:"ids"`
	Importance *float64 `json:"importance"`
	Content    string   `json:"content"`
	Reason     string   `json:"reason"`
}

// audit is 003 §5: the audit tier (falling back to gate) reviews core and
// working memories shown with 8-character short ids and proposes
// promote, demote, adjust or merge operations; the sandbox checks every
// one before anything is applied.
func (r *run) audit(ctx context.Context) {
	var shown []*memory.Memory
	r.each(func(m *memory.Memory) {
		if active(m) && (m.Layer == memory.LayerCore || m.Layer == memory.LayerWorking) {
			shown = append(shown, m)
		}
	})
	if len(shown) == 0 {
		return
	}
	// The most recently changed first, as many as one call reads.
	slices.SortFunc(shown, func(a, b *memory.Memory) int { return b.ModifiedAt.Compare(a.ModifiedAt) })
	shown = shown[:min(len(shown), r.rules.AuditMaxMemories)]
	short := shortIDs(shown)
	var b strings.Builder
	for _, m := range shown {
		fmt.Fprintf(&b, "[%s] L%d imp=%.2f ac=%d age=%dd mod=%dd tags=[%s] (%s) %s\n", short[m.ID], layerRank(m.Layer), m.Importance,
			m.AccessCount, int(r.now.Sub(m.CreatedAt).Hours()/24), int(r.now.Sub(m.ModifiedAt).Hours()/24),
			strings.Join(m.Tags, ","), m.Kind, clip(m.Content, 600))
	}
	var ans struct {
		Ops []auditOp `json:"ops"`
	}
	model, err := r.ask(ctx, "audit", llm.TierAudit, auditSystem, b.String(), &ans)
	if err != nil {
		r.refuse(PhaseAudit, "audit", err.Error(), DecidedByLLM, model, nil)
		return
	}
	byShort := map[string]*memory.Memory{}
	for _, m := range shown {
		byShort[short[m.ID]] = m
	}
	results := r.sandbox(ans.Ops, byShort)
	good := 0
	for _, res := range results {
		if res.err == nil {
			good++
		}
	}
	if len(results) == 0 {
		return
	}
	if score := float64(good) / float64(len(results)); score < r.rules.SandboxThreshold {
		for _, res := range results {
			why := fmt.Sprintf("batch refused: safety score %.2f < %.2f", score, r.rules.SandboxThreshold)
			if res.err != nil {
				why += "; " + res.err.Error()
			}
			r.refuse(PhaseAudit, res.op.Op, why, DecidedByLLM, model, memIDs(res.targets))
		}
		return
	}
	for _, res := range results {
		if res.err != nil {
			r.refuse(PhaseAudit, res.op.Op, res.err.Error(), DecidedByLLM, model, memIDs(res.targets))
			continue
		}
		r.applyAudit(res, model)
		r.stats.Audited++
	}
}

// shortIDs gives each memory the shortest prefix of its id (at least 8
// characters) that no other shown memory shares.
func shortIDs(ms []*memory.Memory) map[string]string {
	out := map[string]string{}
	for n := 8; ; n += 4 {
		seen := map[string]int{}
		for _, m := range ms {
			seen[prefix(m.ID, n)]++
		}
		clash := false
		for _, m := range ms {
			if seen[prefix(m.ID, n)] > 1 && n < len(m.ID) {
				clash = true
			}
			out[m.ID] = prefix(m.ID, n)
		}
		if !clash {
			return out
		}
	}
}

func prefix(s string, n int) string { return s[:min(n, len(s))] }

func memIDs(ms []*memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// checked is a sandboxed operation: its resolved targets and, when it is
// Bad, why.
type checked struct {
	op      auditOp
	targets []*memory.Memory
	layer   memory.Layer // promote/demote/merge: the layer it lands in
	err     error
}

// sandbox is 003 §5.3's rule checker: every operation is graded Good or
// Bad before anything runs.
func (r *run) sandbox(ops []auditOp, byShort map[string]*memory.Memory) []checked {
	out := make([]checked, 0, len(ops))
	for _, op := range ops {
		c := checked{op: op}
		c.err = r.check(&c, byShort)
		out = append(out, c)
	}
	return out
}

func (r *run) check(c *checked, byShort map[string]*memory.Memory) error {
	op := strings.ToLower(strings.TrimSpace(c.op.Op))
	c.op.Op = op
	ids := c.op.IDs
	if c.op.ID != "" {
		ids = append([]string{c.op.ID}, ids...)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		m := byShort[strings.Trim(strings.TrimSpace(id), "[]")]
		if m == nil {
			return fmt.Errorf("target %q does not exist", id)
		}
		if !seen[m.ID] {
			seen[m.ID] = true
			c.targets = append(c.targets, m)
		}
	}
	switch op {
	case "delete", "remove", "forget":
		return fmt.Errorf("audit has no delete power")
	case "promote", "demote", "adjust":
		if len(c.targets) != 1 {
			return fmt.Errorf("%s needs exactly one target (got %d)", op, len(c.targets))
		}
	case "merge":
		if len(c.targets) < 2 {
			return fmt.Errorf("merge needs at least 2 memories (got %d)", len(c.targets))
		}
	default:
		return fmt.Errorf("unknown operation %q", c.op.Op)
	}
	for _, m := range c.targets {
		if !r.mutable(m) || !active(m) {
			return fmt.Errorf("memory %s already changed in this epoch", m.ID)
		}
		if r.now.Sub(m.ModifiedAt) < r.rules.SandboxRecentMod {
			return fmt.Errorf("memory %s was modified within %s", m.ID, r.rules.SandboxRecentMod)
		}
		if (op == "demote" || op == "merge") && r.now.Sub(m.CreatedAt) < r.rules.SandboxNewAge {
			return fmt.Errorf("memory %s is younger than %s", m.ID, r.rules.SandboxNewAge)
		}
	}
	m := c.targets[0]
	switch op {
	case "promote":
		if m.Layer == memory.LayerCore {
			return fmt.Errorf("memory %s is already in core", m.ID)
		}
		c.layer = layerAt(layerRank(m.Layer) + 1)
		if c.layer == memory.LayerCore && (sessionNote(m) || hasTag(m, TagAutoDistilled) || hasTag(m, TagEphemeral)) {
			return fmt.Errorf("memory %s may not enter core", m.ID)
		}
	case "demote":
		if m.Layer == memory.LayerBuffer {
			return fmt.Errorf("no same-layer demote: memory %s is in the buffer", m.ID)
		}
		c.layer = layerAt(layerRank(m.Layer) - 1) // one layer, never two
	case "adjust":
		if c.op.Importance == nil || *c.op.Importance < 0 || *c.op.Importance > 1 {
			return fmt.Errorf("importance must be within 0..1")
		}
	case "merge":
		top := 0
		for _, t := range c.targets {
			top = max(top, layerRank(t.Layer))
		}
		c.layer = layerAt(top) // merge direction: the highest source layer
		if err := checkMerged(c.op.Content, c.targets...); err != nil {
			return err
		}
	}
	return nil
}

func layerAt(rank int) memory.Layer {
	switch {
	case rank >= 3:
		return memory.LayerCore
	case rank == 2:
		return memory.LayerWorking
	default:
		return memory.LayerBuffer
	}
}

func (r *run) applyAudit(c checked, model string) {
	why := c.op.Reason
	if why == "" {
		why = "audit"
	}
	switch c.op.Op {
	case "promote", "demote":
		r.change(c.targets[0], PhaseAudit, c.op.Op, why, DecidedByLLM, model, func(m *memory.Memory) { m.Layer = c.layer })
		if c.op.Op == "demote" {
			r.stats.Demoted++
		} else if c.layer == memory.LayerCore {
			r.stats.Core++
		}
	case "adjust":
		r.change(c.targets[0], PhaseAudit, "adjust", why, DecidedByLLM, model, func(m *memory.Memory) { m.Importance = *c.op.Importance })
	case "merge":
		made := r.combine(PhaseAudit, c.op.Content, why, DecidedByLLM, model, c.targets...)
		if made != nil && layerRank(made.Layer) < layerRank(c.layer) {
			made.Layer = c.layer
		}
		r.stats.Merged++
	}
}
