package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// strictArgs refuses a call whose arguments repeat a key (the SDK would
// keep the last one) before h runs; the SDK's schema validation already
// refuses unknown fields (additionalProperties false). The tool error names
// the repeated key.
func strictArgs[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if req != nil && req.Params != nil && len(req.Params.Arguments) > 0 {
			if err := strictjson.Check(req.Params.Arguments); err != nil {
				var zero Out
				return nil, zero, err
			}
		}
		return h(ctx, req, in)
	}
}
