package bench

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"regexp"
	"strings"
	"sync"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// usageCounter is the LLM client's usage log for the benchmark: it counts
// the records (one per HTTP attempt) by component.
type usageCounter struct {
	mu    sync.Mutex
	total int
	by    map[string]int
}

func (u *usageCounter) Record(_ context.Context, r usage.Record) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.by == nil {
		u.by = map[string]int{}
	}
	u.total++
	u.by[r.Component]++
}

// take returns the counts since the last take and starts again.
func (u *usageCounter) take() (int, map[string]int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n, by := u.total, u.by
	u.total, u.by = 0, nil
	return n, by
}

var handleRe = regexp.MustCompile(`(?m)^\[(m\d+)\]`)

// ConsolidationAnswer is the scripted model of `bench consolidate
// --scripted-llm`: a well-formed answer to each consolidation prompt,
// decided by a hash of the request so that some pairs merge or update and
// others stay apart, some memories are promoted and some kept.
func ConsolidationAnswer(contents []string) string {
	system, user := contents[0], strings.Join(contents[1:], "\n")
	h := fnv.New32a()
	h.Write([]byte(user))
	yes := h.Sum32()%2 == 0
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	switch {
	case strings.HasPrefix(system, "You triage"), strings.HasPrefix(system, "You guard the CORE"):
		gate := strings.HasPrefix(system, "You guard")
		var ds []map[string]any
		for i, m := range handleRe.FindAllStringSubmatch(user, -1) {
			d := map[string]any{"id": m[1]}
			switch {
			case gate && i%2 == 0:
				d["decision"], d["category"], d["reason"] = "approve", "identity", "lasting preference"
			case gate:
				d["decision"], d["category"], d["reason"] = "reject", "fact", "a plain fact"
			case i%2 == 0:
				d["action"] = "promote"
			default:
				d["action"] = "keep"
			}
			ds = append(ds, d)
		}
		return enc(map[string]any{"decisions": ds})
	case strings.HasPrefix(system, "You merge"):
		a, b, _ := strings.Cut(user, "\nB: ")
		if !yes {
			return `{"merge": false}`
		}
		return enc(map[string]any{"merge": true, "merged": strings.TrimPrefix(a, "A: ") + "; " + b})
	case strings.HasPrefix(system, "You keep an AI agent's memory true"):
		_, newer, _ := strings.Cut(user, "\nNEWER: ")
		if !yes {
			return `{"decision":"keep_both"}`
		}
		return enc(map[string]any{"decision": "update", "merged_content": newer})
	case strings.HasPrefix(system, "You write a project status"):
		return `{"status":"The migration is done, the API tests are in progress, the release is next."}`
	case strings.HasPrefix(system, "You audit"):
		return `{"ops":[]}`
	}
	return `{}`
}
