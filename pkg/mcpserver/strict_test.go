package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/mcpserver"
)

// TestToolArgumentsAreStrict is the MCP door's table: arguments repeating
// a key, or naming a field the tool does not have, are a tool error naming
// the key, before any backend is called (the client points nowhere).
func TestToolArgumentsAreStrict(t *testing.T) {
	cs := session(t, mcpserver.New(client.New("http://127.0.0.1:1", client.WithTenant("acme"))))
	tests := []struct{ name, tool, args, want string }{
		{"learn repeated key", "memory_learn", `{"content":"a","content":"b"}`, "content appears twice"},
		{"learn repeated escaped key", "memory_learn", `{"content":"a","\u0063ontent":"b"}`, "content appears twice"},
		{"recall repeated key after an array", "memory_recall", `{"query":"a","tags":["x"],"query":"b"}`, "query appears twice"},
		{"forget repeated key", "memory_forget", `{"id":"a","id":"b"}`, "id appears twice"},
		{"learn unknown field", "memory_learn", `{"content":"a","colour":"red"}`, "colour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, txt, isErr := call[map[string]any](t, cs, tt.tool, json.RawMessage(tt.args))
			if !isErr || !strings.Contains(txt, tt.want) {
				t.Fatalf("%s(%s): error %v %q, want a tool error containing %q", tt.tool, tt.args, isErr, txt, tt.want)
			}
		})
	}
}
