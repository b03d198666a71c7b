// Package mcp checks Recollect's MCP server with a client other than the Go
// SDK's: the official TypeScript SDK from npm, run with node.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/mcpserver"
)

// required reports whether missing tools fail the test (CI) rather than
// skip it (a developer machine), as for the other test servers.
func required() bool {
	return os.Getenv("CI") != "" || os.Getenv("RECOLLECT_REQUIRE_SERVERS") == "1"
}

// nodeModules installs the locked npm packages when they are missing.
func nodeModules(t *testing.T, npm string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund").CombinedOutput()
	if err == nil {
		return
	}
	msg := "npm ci in test/mcp (installs @modelcontextprotocol/sdk from package-lock.json): " + err.Error() + "\n" + string(out)
	if required() {
		t.Fatal(msg)
	}
	t.Skip(msg + "\n(set RECOLLECT_REQUIRE_SERVERS=1 to make this a failure)")
}

func TestTypeScriptSDK(t *testing.T) {
	node := testserver.RequireBinary(t, "node", "apt-get install -y nodejs npm")
	npm := testserver.RequireBinary(t, "npm", "apt-get install -y npm")
	nodeModules(t, npm)
	a := clienttest.Start(t)
	for _, stateless := range []bool{true, false} {
		name := map[bool]string{true: "stateless", false: "sessions"}[stateless]
		t.Run(name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/mcp", mcpserver.Handler(client.New(a.Web().URL()), mcpserver.WithStateless(stateless)))
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			tenant := "node-" + name
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "client.mjs", srv.URL+"/mcp?tenant="+tenant)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
			}
			var summary struct {
				OK       bool   `json:"ok"`
				Tools    int    `json:"tools"`
				MemoryID string `json:"memory_id"`
				Tenant   string `json:"tenant"`
			}
			if err := json.Unmarshal(out, &summary); err != nil {
				t.Fatalf("node printed %q: %v", out, err)
			}
			if !summary.OK || summary.Tools != 9 || summary.MemoryID == "" || summary.Tenant != tenant {
				t.Fatalf("node summary %+v", summary)
			}
			// What node learned and forgot went through the real API.
			if _, err := client.New(a.Web().URL(), client.WithTenant(tenant)).GetMemory(ctx, "", summary.MemoryID); !errors.Is(err, client.ErrNotFound) {
				t.Fatalf("memory %s after memory_forget: %v, want not found", summary.MemoryID, err)
			}
		})
	}
}
