package embedder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/samefact"
)

// mergeSystem is 003's INSERT_MERGE_PROMPT in spirit: judge sameness
// strictly, and never lose a detail when merging.
const mergeSystem = `You maintain an agent's long-term memory. You are given an EXISTING memory and a NEW fact that is similar to it.
Decide whether they describe the same fact (the same preference, decision, entity or procedure), possibly worded differently or with more detail in one of them.
They are NOT the same if they are about different things, or if one contradicts the other: a different number, date, version, name, path or key, or one negating the other, means NOT the same.
If they are the same, write ONE merged statement that keeps every specific detail of both: numbers, names, dates, versions, paths, commands. Do not generalise, do not add anything that is in neither.
Answer in JSON only: {"same": true, "merged": "<the merged statement>"} or {"same": false}.`

// mergeAnswer is the LLM's judgement.
type mergeAnswer struct {
	Same   *bool  `json:"same"`
	Merged string `json:"merged"`
}

// errMergeAnswer marks an answer that could not be used.
var errMergeAnswer = errors.New("unusable insert-merge answer")

// merge asks the LLM whether the new fact m and its close match are one
// fact and, if so, rewrites the match in place with the merged statement.
// It reports whether the fact was taken care of (merged, or this source
// event already touched the match); false means: insert it. Every LLM
// failure means insert, counted and logged: a fact is never dropped
// because the judge was unavailable. classify offers only a match that
// package samefact finds mergeable (no conflicting detail), and a merged
// statement that drops or changes a detail of either is refused.
func (e *Embedder) merge(ctx context.Context, match, m memory.Memory, source string) (bool, error) {
	if match.HasSource(mergeToken(source, m.ID)) {
		// This fact of this event already merged into the match: a
		// redelivery must not merge twice.
		e.merges.WithLabelValues("already").Inc()
		e.outcomes.WithLabelValues("duplicate").Inc()
		return true, e.announce(ctx, match, memory.StoredReinforced, source)
	}
	merged, err := e.judge(ctx, match, m)
	if err == nil && merged != "" {
		probe := match
		probe.Content = merged
		if verr := probe.Validate(); verr != nil {
			err = fmt.Errorf("%w: %w", errMergeAnswer, verr)
		}
	}
	if err == nil && merged != "" {
		if lost := lostDetail(merged, match.Content, m.Content); lost != "" {
			e.merges.WithLabelValues("lost_detail").Inc()
			e.log.WarnContext(ctx, "insert merge lost a detail, inserting the fact", "tenant", m.Tenant, "memory", match.ID, "fact", m.ID, "reason", lost)
			return false, nil
		}
	}
	if err != nil {
		e.merges.WithLabelValues("failed").Inc()
		e.log.WarnContext(ctx, "insert merge failed, inserting the fact", "tenant", m.Tenant, "memory", match.ID, "fact", m.ID, "error", err)
		return false, nil
	}
	if merged == "" {
		e.merges.WithLabelValues("distinct").Inc()
		return false, nil
	}
	return true, e.applyMerge(ctx, match, m, merged, source)
}

// lostDetail checks that a merged statement keeps every detail of both
// statements it merges (package samefact: each must fold into it) and
// returns what it lost or changed, or "".
func lostDetail(merged string, parts ...string) string {
	for _, p := range parts {
		if v := samefact.CompareDetails(merged, p); !v.Folds() {
			return v.Verdict.String() + ": " + v.Reason
		}
	}
	return ""
}

// judge returns the merged statement, or "" when the two are distinct.
func (e *Embedder) judge(ctx context.Context, match, m memory.Memory) (string, error) {
	user := "EXISTING: " + match.Content + "\nNEW: " + m.Content
	resp, err := e.chat.Chat(ctx, llm.Request{Tenant: m.Tenant, Component: "insert_merge", Tier: llm.TierMerge,
		System: mergeSystem, Messages: []llm.Message{{Role: llm.RoleUser, Content: user}}, JSON: true,
		Temperature: llm.Temperature(0)})
	if err != nil {
		return "", fmt.Errorf("ask llm to merge %s into %s: %w", m.ID, match.ID, err)
	}
	var a mergeAnswer
	if err := llm.DecodeJSON(resp.Content, &a); err != nil {
		return "", fmt.Errorf("%w: %w", errMergeAnswer, err)
	}
	switch {
	case a.Same == nil:
		return "", fmt.Errorf("%w: no \"same\" field", errMergeAnswer)
	case !*a.Same:
		return "", nil
	}
	merged := strings.TrimSpace(a.Merged)
	switch {
	case merged == "":
		return "", fmt.Errorf("%w: same without a merged statement", errMergeAnswer)
	case utf8.RuneCountInString(merged) > memory.MaxContentChars:
		return "", fmt.Errorf("%w: merged statement of %d characters", errMergeAnswer, utf8.RuneCountInString(merged))
	}
	return merged, nil
}

// applyMerge rewrites the match with the merged content, re-embedded, as
// another observation: repetition+1, the source recorded, its history
// (creation, validity, counts, sources) kept. It applies only if the match
// is as judged; if a concurrent write changed its content, the fact is
// retried (redelivered) and judged against the new content.
func (e *Embedder) applyMerge(ctx context.Context, judged, m memory.Memory, merged, source string) error {
	upd := judged
	upd.Content = merged
	vec, err := e.embedMemory(ctx, upd)
	if err != nil {
		return fmt.Errorf("embed merge of %s into %s: %w", m.ID, judged.ID, err)
	}
	unlock := e.lockID(judged.Tenant, judged.ID)
	defer unlock()
	cur, rev, err := e.getRev(ctx, judged.Tenant, judged.ID)
	if err != nil {
		return fmt.Errorf("look up merge target %s: %w", judged.ID, err)
	}
	if cur.HasSource(mergeToken(source, m.ID)) {
		e.merges.WithLabelValues("already").Inc()
		e.outcomes.WithLabelValues("duplicate").Inc()
		return e.announce(ctx, cur, memory.StoredReinforced, source)
	}
	if cur.Content != judged.Content {
		return fmt.Errorf("merge %s into %s: the memory changed while the llm judged", m.ID, judged.ID)
	}
	cur.Content = merged
	vec.Apply(&cur)
	cur.EmbeddingModel = e.model.Model()
	cur.RepetitionCount++
	restate(&cur, m)
	cur.AddSource(source)
	cur.AddSource(mergeToken(source, m.ID))
	if ts := m.CreatedAt; ts.After(cur.ModifiedAt) {
		cur.ModifiedAt = ts
	}
	cur, err = e.putIf(ctx, cur, rev)
	if err != nil {
		return fmt.Errorf("store merge of %s into %s: %w", m.ID, judged.ID, err)
	}
	e.merges.WithLabelValues("merged").Inc()
	e.outcomes.WithLabelValues("merged").Inc()
	return e.announce(ctx, cur, memory.StoredUpdated, source)
}

// mergeToken is the source id a merge records: the event and the fact, so
// that a redelivered fact is recognised while another fact of the same
// event (a turn often yields several) is still judged and merged.
func mergeToken(source, factID string) string { return source + "#" + factID }
