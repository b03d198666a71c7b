package consolidate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Chat is what the consolidator needs of the LLM client. Every call is
// recorded in the usage log by the client, with the component below.
type Chat interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
	Level() llm.Level
}

// level is the LLM level in force: off without a client.
func (c *Consolidator) level() llm.Level {
	if c.chat == nil {
		return llm.LevelOff
	}
	return c.chat.Level()
}

// errAnswer marks an LLM answer that could not be used.
var errAnswer = errors.New("unusable llm answer")

// ask makes one JSON call and decodes the answer into out. It returns the
// model that answered.
func (r *run) ask(ctx context.Context, component string, tier llm.Tier, system, user string, out any) (string, error) {
	r.stats.LLMCalls++
	resp, err := r.c.chat.Chat(ctx, llm.Request{Tenant: r.tenant, Component: component, Tier: tier, System: system,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: user}}, JSON: true, Temperature: llm.Temperature(0)})
	if err != nil {
		r.c.llmFailures.WithLabelValues(component).Inc()
		return "", fmt.Errorf("%s call for tenant %s: %w", component, r.tenant, err)
	}
	if err := llm.DecodeJSON(resp.Content, out); err != nil {
		r.c.llmFailures.WithLabelValues(component).Inc()
		return resp.Model, fmt.Errorf("%w from %s: %w", errAnswer, component, err)
	}
	return resp.Model, nil
}

// decision is one per-memory answer of a batch call (triage, gate).
type decision struct {
	ID         string `json:"id"`
	Action     string `json:"action"`   // triage: promote | keep
	Decision   string `json:"decision"` // gate: approve | reject
	Procedural bool   `json:"procedural"`
	Category   string `json:"category"`
	Reason     string `json:"reason"`
}

// decideBatch shows the batch to the LLM under short handles (m1, m2, …;
// note adds to a memory's line) and calls apply for each decision that
// names one of them, once. Memories the answer leaves out, or all of them
// when the call fails, wait for the next epoch.
func (r *run) decideBatch(ctx context.Context, component string, tier llm.Tier, system string, batch []*memory.Memory,
	note func(*memory.Memory) string, apply func(m *memory.Memory, d decision, model string)) {
	var b strings.Builder
	handles := map[string]*memory.Memory{}
	for i, m := range batch {
		h := fmt.Sprintf("m%d", i+1)
		handles[h] = m
		b.WriteString(line(h, m))
		if note != nil {
			b.WriteString(note(m))
		}
		b.WriteByte('\n')
	}
	var ans struct {
		Decisions []decision `json:"decisions"`
	}
	model, err := r.ask(ctx, component, tier, system, b.String(), &ans)
	if err != nil {
		r.c.log.WarnContext(ctx, component+" call failed; its memories wait for the next epoch", "tenant", r.tenant, "memories", len(batch), "error", err)
		return
	}
	for _, d := range ans.Decisions {
		h := strings.TrimSpace(d.ID)
		if m := handles[h]; m != nil {
			delete(handles, h)
			apply(m, d, model)
		}
	}
}

// line is how a memory is shown to the LLM: a short handle and its text.
func line(handle string, m *memory.Memory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] (%s/%s", handle, m.Type, m.Kind)
	if m.Key != "" {
		fmt.Fprintf(&b, ", key %s", m.Key)
	}
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, ", tags %s", strings.Join(m.Tags, ","))
	}
	b.WriteString(") ")
	b.WriteString(clip(m.Content, 1200))
	return b.String()
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// validContent checks text an LLM wrote as a memory's new content.
func validContent(s string) error {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return fmt.Errorf("%w: empty content", errAnswer)
	case utf8.RuneCountInString(s) > memory.MaxContentChars:
		return fmt.Errorf("%w: content over %d characters", errAnswer, memory.MaxContentChars)
	}
	return nil
}

// The prompts. Each asks for JSON only and says what may never happen.
const (
	triageSystem = `You triage an AI agent's new memories (its buffer). For each memory decide:
- "promote": durable knowledge worth keeping active: explicit statements the user asked to remember, corrections, constraints and rules, decisions, preferences, lessons, procedures, stable facts about the user, people, projects or tools.
- "keep": leave it in the buffer: chit-chat, transcripts, one-off episodes, transient status, anything unsure.
Set "procedural": true when a promoted memory is a how-to or workflow.
Answer in JSON only: {"decisions":[{"id":"<handle>","action":"promote"|"keep","procedural":false}]} with one decision per memory.`

	gateSystem = `You guard the CORE of an AI agent's long-term memory. Only four kinds of memory may enter core:
1. LESSON: a hard-won insight from a mistake or experience.
2. IDENTITY: who the user or agent is, lasting preferences, personal constraints.
3. CONSTRAINT: an unconditional rule. If it says "for now", "temporary", "this week" or similar, reject.
4. DECISION RATIONALE: why a permanent architectural or design choice was made.
Everything else is rejected by default: facts, status, episodes, plans, anything temporary or specific to one task.
Answer in JSON only: {"decisions":[{"id":"<handle>","decision":"approve"|"reject","category":"lesson|identity|constraint|decision","reason":"<short>"}]} with one decision per memory.`

	mergeSystem = `You merge two near-duplicate memories of an AI agent into ONE statement.
Keep every specific detail of both: names, numbers, dates, versions, paths, commands, constraints. Do not generalise and add nothing that is in neither.
If the two contradict each other or are about different things, do not merge.
Answer in JSON only: {"merge": true, "merged": "<the merged statement>"} or {"merge": false}.`

	reconcileSystem = `You keep an AI agent's memory true over time. You are given an OLDER and a NEWER memory on a related topic.
Decide:
- "update": the newer one changes or replaces what the older one says (the older is now stale).
- "absorb": they overlap; one statement can hold both without losing anything.
- "keep_both": they are different aspects or different facts; both stay.
For update and absorb, write "merged_content": one statement with the CURRENT truth that keeps every still-valid specific detail (names, numbers, constraints). For an update it states the newer value, never the older one.
Give a short "reason" for your decision; it is kept in the audit log.
Answer in JSON only: {"decision":"update"|"absorb"|"keep_both","merged_content":"...","reason":"..."}.`

	distillSystem = `You write a project status snapshot from an AI agent's session notes.
At most 250 characters, present tense, the current state only: what is done, what is in progress, what is next. No preamble.
Answer in JSON only: {"status":"<the snapshot>"}.`

	auditSystem = `You audit an AI agent's long-term memory (its core L3 and working L2 layers). You may propose only these operations:
- {"op":"promote","id":"<id>"}: move one layer up.
- {"op":"demote","id":"<id>"}: move one layer down (core to working, working to buffer), never two.
- {"op":"adjust","id":"<id>","importance":0.0-1.0}: change importance.
- {"op":"merge","ids":["<id>","<id>",...],"content":"<merged text keeping every detail>"}: combine duplicates into one.
You cannot delete anything. Propose only clear improvements; an empty list is a fine answer.
Answer in JSON only: {"ops":[...]} where each op may also carry "reason".`
)
