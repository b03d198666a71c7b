package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/query"
)

// Bounds on what memory_topic returns, to keep a model's context small.
const (
	maxIndexEntries    = 200
	maxMemoriesByTopic = 10
	maxTopicMemories   = 50
)

// TopicInput is memory_topic's input.
type TopicInput struct {
	IDs []string `json:"ids,omitempty" jsonschema:"topic ids to drill into; none lists the topic index"`
}

// TopicEntry is one topic; Memories are filled when drilling down.
type TopicEntry struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Size     int           `json:"size" jsonschema:"memories beneath the topic"`
	Depth    int           `json:"depth" jsonschema:"0 for a root topic"`
	Parent   string        `json:"parent,omitempty"`
	Memories []MemoryBrief `json:"memories,omitempty"`
}

// TopicOutput is the index (the tree flattened, parents before children)
// or the requested topics.
type TopicOutput struct {
	Memories int          `json:"memories" jsonschema:"memories placed in the tree"`
	Topics   []TopicEntry `json:"topics"`
	Missing  []string     `json:"missing,omitempty" jsonschema:"requested ids not in the tree (it is rebuilt as memories change)"`
}

func (t *tools) topic(ctx context.Context, req *mcp.CallToolRequest, in TopicInput) (*mcp.CallToolResult, TopicOutput, error) {
	c := t.clientFor(req)
	treq := query.TopicsRequest{IDs: in.IDs}
	if len(in.IDs) > 0 {
		treq.Limit = maxMemoriesByTopic
	}
	resp, err := c.Topics(ctx, treq)
	if err != nil {
		return nil, TopicOutput{}, explain(err)
	}
	out := TopicOutput{Memories: resp.Memories, Topics: []TopicEntry{}, Missing: resp.Missing}
	var b strings.Builder
	if len(in.IDs) == 0 {
		flatten(resp.Topics, 0, "", &out.Topics)
		if len(out.Topics) == 0 {
			b.WriteString("No topics yet: the index is built a few seconds after memories are stored.")
		}
		for _, e := range out.Topics {
			fmt.Fprintf(&b, "%s- %s [%d] (id %s)\n", strings.Repeat("  ", e.Depth), e.Name, e.Size, e.ID)
		}
		return text(strings.TrimSpace(b.String())), out, nil
	}
	budget := maxTopicMemories
	for _, n := range resp.Topics {
		e := TopicEntry{ID: n.ID, Name: n.Name, Size: n.Size}
		fmt.Fprintf(&b, "%s [%d] (id %s)\n", n.Name, n.Size, n.ID)
		for _, m := range resp.Details[n.ID].Memories {
			if budget == 0 {
				break
			}
			budget--
			e.Memories = append(e.Memories, brief(m))
			fmt.Fprintf(&b, "- %s: %s\n", m.ID, m.Content)
		}
		if more := n.Size - len(e.Memories); more > 0 {
			fmt.Fprintf(&b, "  (%d more, or archived or superseded; drill into its subtopics or use memory_recall)\n", more)
		}
		out.Topics = append(out.Topics, e)
	}
	if len(out.Missing) > 0 {
		fmt.Fprintf(&b, "Not in the index (it is rebuilt as memories change): %s\n", strings.Join(out.Missing, ", "))
	}
	return text(strings.TrimSpace(b.String())), out, nil
}

// flatten lists the tree parents first, up to maxIndexEntries.
func flatten(nodes []*client.TopicNode, depth int, parent string, out *[]TopicEntry) {
	for _, n := range nodes {
		if len(*out) >= maxIndexEntries {
			return
		}
		*out = append(*out, TopicEntry{ID: n.ID, Name: n.Name, Size: n.Size, Depth: depth, Parent: parent})
		flatten(n.Children, depth+1, n.ID, out)
	}
}
