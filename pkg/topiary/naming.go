package topiary

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/topics"
)

// Naming limits (003 §6.3: dirty topics in batches of 30, existing names as
// context).
const (
	namingBatch     = 30
	maxNameChars    = 60
	maxContextNames = 200 // existing names sent as context, at most
	samplesPerTopic = 5   // member texts shown per topic, most important first
	sampleChars     = 200 // each cut to this many characters
)

// namingSystem is the naming prompt (003's TOPIC_NAMING_SYSTEM).
const namingSystem = `You name topics in an index of an AI agent's long-term memories. Each topic is a cluster of related memories; you see its id, its size, keywords and a few of its memories.

For every topic give a short, specific name (2 to 5 words, at most 60 characters) saying what its memories are about, e.g. "Deployment pipeline", "User's editor preferences", "Invoice schema migration". No quotes, no ids, no trailing punctuation. Every name must differ from the others and from the existing names listed.

Answer with JSON only: {"names": {"<topic id>": "<name>", ...}} with one entry per topic id given.`

// nameTopics gives the tree's topics their names and returns the ids of
// those named by the LLM. A topic whose id was LLM-named in the previous
// tree and that has the same members keeps that name; the others ("dirty":
// new, changed (a kept id whose members changed), or word-named before)
// are named by the LLM in batches, leaves first. A topic the LLM fails for keeps its word name (counted as
// fallback) and is offered again at the next rebuild.
func (t *Topiary) nameTopics(ctx context.Context, tenant string, tree topics.Tree, prev saved, texts map[string]string) []string {
	kept := map[string]*topics.Node{}
	for _, id := range prev.LLMNamed {
		if n, ok := prev.Find(id); ok {
			kept[id] = n
		}
	}
	var named []string
	var dirty []*topics.Node
	var existing []string // names the LLM must not reuse
	taken := map[string]bool{}
	for _, n := range allNodes(tree) {
		if old, ok := kept[n.ID]; ok && sameMembers(old, n) {
			name := old.Name
			n.Name = name
			named = append(named, n.ID)
			existing = append(existing, name)
			taken[strings.ToLower(name)] = true
			continue
		}
		dirty = append(dirty, n)
	}
	t.naming.WithLabelValues("kept").Add(float64(len(named)))
	if t.chat == nil || len(dirty) == 0 {
		return named
	}
	// Leaves first: they are what resume lists.
	slices.SortStableFunc(dirty, func(a, b *topics.Node) int {
		return cmp.Compare(boolInt(!a.Leaf()), boolInt(!b.Leaf()))
	})
	// Naming may take at most half the lease, so the tree is still saved
	// in time when the LLM is slow.
	nctx, cancel := context.WithTimeout(ctx, t.cfg.LeaseTTL/2)
	defer cancel()
	for start := 0; start < len(dirty); start += namingBatch {
		batch := dirty[start:min(len(dirty), start+namingBatch)]
		names, err := t.nameBatch(nctx, tenant, batch, existing, texts)
		if err != nil && !errors.Is(err, llm.ErrNoJSON) {
			// The call failed (after the client's retries and fallbacks):
			// the rest keep their word names until the next rebuild.
			t.log.WarnContext(ctx, "name topics", "tenant", tenant, "topics", len(dirty)-start, "error", err)
			t.naming.WithLabelValues("fallback").Add(float64(len(dirty) - start))
			break
		}
		if err != nil {
			t.log.WarnContext(ctx, "name topics", "tenant", tenant, "topics", len(batch), "error", err)
		}
		bad := 0
		for _, n := range batch {
			name, ok := validName(names[n.ID])
			if !ok || taken[strings.ToLower(name)] {
				bad++
				continue
			}
			n.Name = name
			named = append(named, n.ID)
			existing = append(existing, name)
			taken[strings.ToLower(name)] = true
		}
		if bad > 0 && err == nil {
			t.log.WarnContext(ctx, "topic names missing or invalid in the answer", "tenant", tenant, "topics", bad)
		}
		t.naming.WithLabelValues("llm").Add(float64(len(batch) - bad))
		t.naming.WithLabelValues("fallback").Add(float64(bad))
	}
	return named
}

// nameBatch asks the LLM to name one batch of topics.
func (t *Topiary) nameBatch(ctx context.Context, tenant string, batch []*topics.Node, existing []string, texts map[string]string) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("no time left to name: %w", err)
	}
	resp, err := t.chat.Chat(ctx, llm.Request{Tenant: tenant, Component: "naming", Tier: llm.TierNaming, System: namingSystem,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: namingPrompt(batch, existing, texts)}}, JSON: true,
		MaxTokens: 40*len(batch) + 100})
	if err != nil {
		return nil, err
	}
	var ans struct {
		Names map[string]string `json:"names"`
	}
	if err := llm.DecodeJSON(resp.Content, &ans); err != nil {
		return nil, fmt.Errorf("decode naming answer: %w", err)
	}
	return ans.Names, nil
}

// namingPrompt lists the existing names, then each topic with its
// keywords (its word name) and a few member texts.
func namingPrompt(batch []*topics.Node, existing []string, texts map[string]string) string {
	var b strings.Builder
	if len(existing) > 0 {
		b.WriteString("Existing topic names (do not reuse):\n")
		for _, name := range existing[:min(len(existing), maxContextNames)] {
			fmt.Fprintf(&b, "- %s\n", name)
		}
		b.WriteString("\n")
	}
	b.WriteString("Topics to name:\n")
	for _, n := range batch {
		fmt.Fprintf(&b, "\n[%s] %d memories; keywords: %s\n", n.ID, n.Size, n.Name)
		shown := 0
		for _, id := range n.MemoryIDs {
			if shown == samplesPerTopic {
				break
			}
			if text, ok := texts[id]; ok {
				fmt.Fprintf(&b, "- %s\n", clip(strings.Join(strings.Fields(text), " "), sampleChars))
				shown++
			}
		}
	}
	return b.String()
}

// sampleTexts returns the texts namingPrompt shows: those of the first
// samplesPerTopic memories of every topic.
func sampleTexts(tree topics.Tree, text func(id string) (string, bool)) map[string]string {
	out := map[string]string{}
	for _, n := range allNodes(tree) {
		for _, id := range n.MemoryIDs[:min(len(n.MemoryIDs), samplesPerTopic)] {
			if s, ok := text(id); ok {
				out[id] = s
			}
		}
	}
	return out
}

// validName cleans an LLM's name: one line, no surrounding quotes or
// trailing full stop, 1 to maxNameChars characters.
func validName(s string) (string, bool) {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(s, "\"'`“”‘’")
	s = strings.TrimSpace(strings.TrimSuffix(s, "."))
	return s, s != "" && utf8.RuneCountInString(s) <= maxNameChars
}

// allNodes lists every topic of the tree, parents before children.
func allNodes(tree topics.Tree) []*topics.Node {
	out := slices.Clone(tree.Roots)
	for i := 0; i < len(out); i++ {
		out = append(out, out[i].Children...)
	}
	return out
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sameMembers reports whether two topics hold the same memories.
func sameMembers(a, b *topics.Node) bool {
	if len(a.MemoryIDs) != len(b.MemoryIDs) {
		return false
	}
	x, y := slices.Clone(a.MemoryIDs), slices.Clone(b.MemoryIDs)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
