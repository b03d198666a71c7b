package promptctx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/topiary"
)

// Resume section names, in priority order (ResumeResponse.Sections).
const (
	SectionCore     = "core"
	SectionRecent   = "recent"
	SectionTopics   = "topics"
	SectionTriggers = "triggers"
)

const (
	resCore = iota
	resRecent
	resTopics
	resTriggers
)

// TriggerPrefix marks trigger tags (003: "trigger:*").
const TriggerPrefix = "trigger:"

// TopicSummary is one leaf topic in resume's index; POST /v1/topics with its
// id drills into it.
type TopicSummary = api.TopicSummary

// ResumeResponse is the answer of GET /v1/resume (003 §7).
type ResumeResponse = api.ResumeResponse

// Resume assembles session-recovery context: Core memories by weight,
// Recent non-core memories newest first (those written within the last
// RecentEpochs consolidation epochs), the topic index and the trigger
// tags, each within its share of the budget. With an LLM, a Core or Recent
// section over its share is summarised instead of truncated. It only
// reads: unlike recall it never counts as an access (003 invariant 9).
func (a *Assembler) Resume(ctx context.Context, req ResumeRequest) (ResumeResponse, error) {
	if err := a.normalizeResume(&req); err != nil {
		return ResumeResponse{}, err
	}
	now := a.now()
	vis, err := a.visible(ctx, req.Tenant, req.Namespace, "", memory.TimeView{})
	if err != nil {
		return ResumeResponse{}, err
	}
	topics, err := a.topicIndex(ctx, req.Tenant, vis)
	if err != nil {
		return ResumeResponse{}, err
	}

	working, buffer := 0, 0
	for i := range vis {
		switch vis[i].Layer {
		case memory.LayerWorking:
			working++
		case memory.LayerBuffer:
			buffer++
		}
	}
	scale := func(n int) int { return n * req.Budget / a.cfg.resumeBudget() }
	since, window := a.recentSince(ctx, req.Tenant, now)
	coreCount := -1 // the memories a compressed Core stands for
	p := newPacker(a.tok, req.Budget, []section{
		resCore: {key: SectionCore, limit: scale(a.cfg.ResumeCore), title: func(n int) string {
			if coreCount >= 0 {
				n = coreCount
			}
			return fmt.Sprintf("=== Core (%d) ===\n", n)
		}},
		resRecent: {key: SectionRecent, limit: scale(a.cfg.ResumeRecent), title: func(int) string { return "=== Recent (" + window + ") ===\n" }},
		resTopics: {key: SectionTopics, limit: scale(a.cfg.ResumeTopics), title: func(int) string {
			return fmt.Sprintf("=== Topics (Working: %d, Buffer: %d) ===\n", working, buffer)
		}},
		resTriggers: {key: SectionTriggers, limit: scale(a.cfg.ResumeTriggers), inline: true, title: func(int) string { return "Triggers: " }},
	})
	for _, s := range []int{resCore, resRecent, resTopics, resTriggers} {
		if p.sections[s].limit == 0 {
			p.sections[s].limit = -1 // a zero share means no section, not no limit
		}
	}

	core, recent := a.resumeMemories(vis, req.SessionID, since)
	mems := map[int][]memory.Memory{resCore: core, resRecent: recent}
	comp := a.compressSections(ctx, req.Tenant, p, mems)
	for _, s := range []int{resCore, resRecent} {
		if c, ok := comp[s]; ok {
			if s == resCore {
				coreCount = c.covered
			}
			if p.add(s, "", c.text, compressedRef) {
				continue
			}
			delete(comp, s)
			coreCount = -1
		}
		ms := mems[s]
		fill(p, s, len(ms), func(i int) string { return memoryLine(&ms[i]) })
	}
	fill(p, resTopics, len(topics), func(i int) string {
		t := topics[i]
		return fmt.Sprintf("%s: \"%s\" [%d]\n", t.ID, strings.ReplaceAll(flatten(t.Name), `"`, "'"), t.Size)
	})
	triggers := triggerTags(vis)
	fill(p, resTriggers, len(triggers), func(i int) string { return flatten(triggers[i]) })

	text, tokens, counts := p.fit()
	resp := ResumeResponse{Core: []memory.Memory{}, Recent: []memory.Memory{}, Topics: []TopicSummary{}, Triggers: []string{},
		Text: text, Tokens: tokens, Budget: req.Budget, Sections: map[string]int{}}
	for s, sec := range p.sections {
		resp.Sections[sec.key] = counts[s]
	}
	for s, out := range map[int]*[]memory.Memory{resCore: &resp.Core, resRecent: &resp.Recent} {
		for _, e := range p.entries[s] {
			if e.ref == compressedRef {
				*out = append(*out, mems[s][:comp[s].covered]...)
				resp.Compressed = append(resp.Compressed, p.sections[s].key)
				continue
			}
			*out = append(*out, mems[s][e.ref])
		}
	}
	slices.SortFunc(resp.Compressed, func(x, y string) int { return cmp.Compare(sectionRank(x), sectionRank(y)) })
	for _, e := range p.entries[resTopics] {
		resp.Topics = append(resp.Topics, topics[e.ref])
	}
	for _, e := range p.entries[resTriggers] {
		resp.Triggers = append(resp.Triggers, triggers[e.ref])
	}
	return resp, nil
}

// compressedRef marks the entry holding a compressed section.
const compressedRef = -1

// memoryLine is a memory's line in Core or Recent.
func memoryLine(m *memory.Memory) string { return "- " + flatten(m.Content) + "\n" }

// compressSections asks the LLM, for Core and Recent at once, to summarise
// the sections over their limits.
func (a *Assembler) compressSections(ctx context.Context, tenant string, p *packer, mems map[int][]memory.Memory) map[int]compressed {
	out := map[int]compressed{}
	if a.resume.chat == nil {
		return out
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for s, ms := range mems {
		lines := make([]string, len(ms))
		for i := range ms {
			lines[i] = memoryLine(&ms[i])
		}
		sec := p.sections[s]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c, ok := a.compress(ctx, tenant, sec, lines); ok {
				mu.Lock()
				out[s] = c
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

func sectionRank(key string) int {
	return slices.Index([]string{SectionCore, SectionRecent, SectionTopics, SectionTriggers}, key)
}

// fill admits n texts to a section in order, skipping what does not fit
// until maxMisses in a row failed.
func fill(p *packer, s, n int, text func(i int) string) {
	misses := 0
	for i := 0; i < n && misses < maxMisses; i++ {
		if p.add(s, "", text(i), i) {
			misses = 0
		} else {
			misses++
		}
	}
}

// kindBoost favours procedural memories in Core (003): they decay slowest.
func kindBoost(k memory.Kind) float64 {
	switch k {
	case memory.KindProcedural:
		return 1.3
	case memory.KindEpisodic:
		return 0.8
	default:
		return 1
	}
}

// resumeMemories splits the visible memories into Core, ordered by
// importance × kind boost × (1 + repetitions × 2.5) (003), and Recent:
// non-core memories written since since, the session's own first, then
// newest first.
func (a *Assembler) resumeMemories(vis []memory.Memory, session string, since time.Time) (core, recent []memory.Memory) {
	for _, m := range vis {
		switch {
		case m.Layer == memory.LayerCore:
			core = append(core, m)
		case written(&m).After(since):
			recent = append(recent, m)
		}
	}
	weight := func(m *memory.Memory) float64 {
		return m.Importance * kindBoost(m.Kind) * (1 + float64(max(0, m.RepetitionCount))*repetitionWeight)
	}
	slices.SortFunc(core, func(x, y memory.Memory) int {
		if c := cmp.Compare(weight(&y), weight(&x)); c != 0 {
			return c
		}
		if c := written(&y).Compare(written(&x)); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	slices.SortFunc(recent, func(x, y memory.Memory) int {
		if session != "" {
			if xs, ys := x.Session == session, y.Session == session; xs != ys {
				if xs {
					return -1
				}
				return 1
			}
		}
		if c := written(&y).Compare(written(&x)); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return core, recent
}

// written is when a memory was last created or changed (not accessed).
func written(m *memory.Memory) time.Time {
	if m.ModifiedAt.After(m.CreatedAt) {
		return m.ModifiedAt
	}
	return m.CreatedAt
}

// topicIndex is the flat leaf index of the tenant's cached topic tree,
// counting only memories the request can see, largest first. No tree yet
// means no Topics section (003).
func (a *Assembler) topicIndex(ctx context.Context, tenant string, vis []memory.Memory) ([]TopicSummary, error) {
	if a.trees == nil {
		return nil, nil
	}
	tree, err := a.trees.Load(ctx, tenant)
	if errors.Is(err, topiary.ErrNoTree) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load topic tree for resume: %w", err)
	}
	seen := make(map[string]bool, len(vis))
	for i := range vis {
		seen[vis[i].ID] = true
	}
	var out []TopicSummary
	for _, n := range tree.Leaves() {
		size := 0
		for _, id := range n.MemoryIDs {
			if seen[id] {
				size++
			}
		}
		if size > 0 {
			out = append(out, TopicSummary{ID: n.ID, Name: n.Name, Size: size})
		}
	}
	slices.SortStableFunc(out, func(x, y TopicSummary) int {
		if c := cmp.Compare(y.Size, x.Size); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return out, nil
}

// triggerTags are the distinct trigger:* tags, without the prefix, by the
// summed access count of their memories (003), ties by name.
func triggerTags(vis []memory.Memory) []string {
	access := map[string]int{}
	for i := range vis {
		for _, t := range vis[i].Tags {
			if name, ok := strings.CutPrefix(t, TriggerPrefix); ok && strings.TrimSpace(name) != "" {
				access[name] += max(0, vis[i].AccessCount)
			}
		}
	}
	out := make([]string, 0, len(access))
	for name := range access {
		out = append(out, name)
	}
	slices.SortFunc(out, func(x, y string) int {
		if c := cmp.Compare(access[y], access[x]); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	return out
}

// formatWindow writes a window as "24h", "90m" or a duration string.
func formatWindow(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return d.String()
	}
}
