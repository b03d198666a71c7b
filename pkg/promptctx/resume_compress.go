package promptctx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// Section compression (003 §7: "Resume compress", tier resume, component
// resume_compress).
const (
	// compressInput bounds what the LLM reads: the section's lines up to
	// this many times its budget, best first; the rest is left out as
	// truncation would.
	compressInput = 4
	// summaryCacheSize bounds the summaries kept: the same lines under the
	// same budget are not compressed twice.
	summaryCacheSize = 256
)

// compressed is a section the LLM summarised: its lines, and how many of
// the section's memories (the first ones) they stand for.
type compressed struct {
	text    string
	covered int
}

var sectionHints = map[string]string{
	SectionCore:   "They are the agent's permanent rules, identity, preferences and lessons, most important first.",
	SectionRecent: "They are what was recently learned or changed, newest first; keep what is still in progress.",
}

const compressSystem = `You compress one section of an AI agent's session-resume context. You get the section's memories, one per line. %s

Rewrite them as terse bullet lines, each starting with "- ", in at most about %d tokens in all. Keep every concrete detail that matters: names, numbers, versions, paths, commands, rules, constraints and decisions. Merge duplicates and drop filler. Never add anything the memories do not say. Answer with the bullet lines only.`

// compress summarises a section's lines through the LLM when they do not
// fit its limit. It reports false, and the section is truncated instead,
// when there is no LLM, the lines fit, or the call fails or answers with
// something that does not fit either.
func (a *Assembler) compress(ctx context.Context, tenant string, sec section, lines []string) (compressed, bool) {
	if a.resume.chat == nil || sec.limit <= 0 || len(lines) == 0 {
		return compressed{}, false
	}
	head := a.tok.Count(sec.title(len(lines)))
	total, take, over := head, 0, false
	for _, l := range lines {
		total += a.tok.Count(l)
		if total > sec.limit {
			over = true
		}
		if total > compressInput*sec.limit {
			break
		}
		take++
	}
	if !over || take == 0 {
		return compressed{}, false
	}
	input := lines[:take]
	key := summaryKey(tenant, sec.key, sec.limit, input)
	if text, ok := a.resume.summary.get(key); ok {
		return compressed{text: text, covered: take}, true
	}
	text, err := a.summarize(ctx, tenant, sec, head, input)
	if err == nil && a.tok.Count(sec.title(take)+text) > sec.limit {
		err = fmt.Errorf("summary of %d tokens is over the section's %d", a.tok.Count(sec.title(take)+text), sec.limit)
	}
	if err != nil {
		a.log.WarnContext(ctx, "compress resume section; truncating it", "tenant", tenant, "section", sec.key, "error", err)
		return compressed{}, false
	}
	a.resume.summary.put(key, text)
	return compressed{text: text, covered: take}, true
}

// summarize makes the call and cleans the answer into bullet lines.
func (a *Assembler) summarize(ctx context.Context, tenant string, sec section, head int, input []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.CompressTimeout)
	defer cancel()
	target := max(1, (sec.limit-head)*9/10) // room for the tokenizers to disagree
	resp, err := a.resume.chat.Chat(ctx, llm.Request{Tenant: tenant, Component: "resume_compress", Tier: llm.TierResume,
		System:    fmt.Sprintf(compressSystem, sectionHints[sec.key], target),
		Messages:  []llm.Message{{Role: llm.RoleUser, Content: strings.Join(input, "")}},
		MaxTokens: 2 * sec.limit})
	if err != nil {
		return "", err
	}
	if resp.FinishReason == "length" {
		return "", errors.New("the summary was cut at its token limit")
	}
	var b strings.Builder
	for _, line := range strings.Split(resp.Content, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•"))
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		b.WriteString("- " + flatten(line) + "\n")
	}
	if b.Len() == 0 {
		return "", errors.New("empty summary")
	}
	return b.String(), nil
}

func summaryKey(tenant, section string, limit int, lines []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", tenant, section, limit)
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// summaryCache keeps recent summaries; when full, an arbitrary one gives
// way.
type summaryCache struct {
	mu   sync.Mutex
	max  int
	byID map[string]string
}

func newSummaryCache(n int) *summaryCache { return &summaryCache{max: n, byID: map[string]string{}} }

func (c *summaryCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byID[key]
	return s, ok
}

func (c *summaryCache) put(key, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byID) >= c.max {
		for k := range c.byID {
			delete(c.byID, k)
			break
		}
	}
	c.byID[key] = text
}
