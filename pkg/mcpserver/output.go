package mcpserver

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// MemoryBrief is a memory as the tools show it: what a model needs to use
// or forget it, not every bookkeeping field.
type MemoryBrief struct {
	ID        string      `json:"id"`
	Content   string      `json:"content"`
	Key       string      `json:"key,omitempty"`
	Namespace string      `json:"namespace"`
	Domain    string      `json:"domain"`
	Type      memory.Type `json:"type"`
	Layer     string      `json:"layer"`
	Tags      []string    `json:"tags,omitempty"`
	Score     float64     `json:"score,omitempty" jsonschema:"recall score, higher is more relevant"`
}

func brief(m memory.Memory) MemoryBrief {
	return MemoryBrief{ID: m.ID, Content: m.Content, Key: m.Key, Namespace: m.Namespace, Domain: m.Domain, Type: m.Type, Layer: string(m.Layer), Tags: m.Tags}
}

func briefs(ms []memory.Memory) []MemoryBrief {
	out := make([]MemoryBrief, len(ms))
	for i, m := range ms {
		out[i] = brief(m)
	}
	return out
}

// text is a result whose content is s; the SDK adds the structured output.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// explain turns an API error into what a model can act on; the SDK reports
// it as a tool error (isError) rather than a protocol error.
func explain(err error) error {
	var apiErr *client.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	switch {
	case apiErr.Status == http.StatusNotFound && (apiErr.Code == "" || apiErr.Code == "no_route"):
		return fmt.Errorf("the Recollect server does not support %s yet (404)", apiErr.Path)
	case apiErr.Field != "":
		return fmt.Errorf("invalid %s: %s", apiErr.Field, apiErr.Message)
	case errors.Is(err, client.ErrUnavailable):
		return fmt.Errorf("memory is busy, retry in %s: %s", max(apiErr.RetryAfter, time.Second), apiErr.Message)
	}
	return err
}
