package consolidate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// distill is 003 §3.3: when DistillMinNotes or more undistilled session
// notes of one namespace (and subject) accumulate, the latest
// DistillMaxNotes become one project status of at most DistillMaxChars,
// tagged project-status and auto-distilled, in working; it never enters
// core. The notes are tagged distilled. The status supersedes the
// namespace's previous status instead of sitting beside it. It needs an
// LLM: at llm-level off notes wait.
func (r *run) distill(ctx context.Context) {
	if r.c.level() == llm.LevelOff {
		return
	}
	groups := map[string][]*memory.Memory{}
	prev := map[string][]*memory.Memory{}
	r.each(func(m *memory.Memory) {
		if !active(m) {
			return
		}
		k := m.Namespace + "\x00" + m.Subject
		switch {
		case hasTag(m, TagProjectStatus) && hasTag(m, TagAutoDistilled):
			prev[k] = append(prev[k], m)
		case sessionNote(m) && !hasTag(m, TagDistilled) && r.mutable(m):
			groups[k] = append(groups[k], m)
		}
	})
	keys := make([]string, 0, len(groups))
	for k, notes := range groups {
		if len(notes) >= r.rules.DistillMinNotes {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		slices.SortFunc(groups[k], newerFirst)
	}
	// The groups with the newest notes first, at most DistillMaxCalls;
	// the rest wait for the next epoch.
	slices.SortFunc(keys, func(a, b string) int {
		if c := newerFirst(groups[a][0], groups[b][0]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, k := range keys[:min(len(keys), r.rules.DistillMaxCalls)] {
		notes := groups[k]
		r.distillGroup(ctx, notes[:min(len(notes), r.rules.DistillMaxNotes)], notes, prev[k])
	}
}

func (r *run) distillGroup(ctx context.Context, latest, all, prev []*memory.Memory) {
	var b strings.Builder
	ids := make([]string, 0, len(latest))
	for i := len(latest) - 1; i >= 0; i-- { // oldest first reads as a story
		m := latest[i]
		fmt.Fprintf(&b, "- (%s) %s\n", m.CreatedAt.UTC().Format("2006-01-02 15:04"), clip(m.Content, 800))
		ids = append(ids, m.ID)
	}
	var ans struct {
		Status string `json:"status"`
	}
	model, err := r.ask(ctx, "distill", llm.TierDistill, distillSystem, b.String(), &ans)
	if err == nil {
		err = validContent(ans.Status)
	}
	if err != nil {
		r.refuse(PhaseDistill, "create", err.Error(), DecidedByLLM, model, ids)
		return
	}
	status := clip(strings.TrimSpace(ans.Status), r.rules.DistillMaxChars)
	head, from := latest[0], latest[0].ValidSince()
	for _, m := range latest { // true since the newest note said it, not since the epoch
		if m.ValidSince().After(from) {
			from = m.ValidSince()
		}
	}
	slices.Sort(ids)
	out := memory.Memory{
		ID:        memory.DeterministicID(append([]string{"consolidate", PhaseDistill, r.tenant}, ids...)...),
		Namespace: head.Namespace, Subject: head.Subject, Channel: head.Channel, Content: status,
		Domain: memory.DomainGeneral, Type: memory.TypeFact, Kind: memory.KindEpisodic, Layer: memory.LayerWorking,
		Importance: 0.5, Confidence: memory.ConfidenceInferred, Source: memory.SourceCompaction,
		Tags: []string{TagProjectStatus, TagAutoDistilled}, DerivedFrom: ids, ValidFrom: from,
	}
	made := r.create(out, PhaseDistill, fmt.Sprintf("%d session notes", len(latest)), DecidedByLLM, model)
	r.stats.Distilled++
	for _, m := range all {
		r.change(m, PhaseDistill, "tag", "distilled into "+made.ID, DecidedByRule, "", func(m *memory.Memory) { m.Tags = addTag(m.Tags, TagDistilled) })
	}
	for _, p := range prev {
		if r.mutable(p) && p.ID != made.ID {
			r.supersede(p, made.ID, PhaseDistill, "a newer project status", DecidedByRule, "")
		}
	}
}
