package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/mcpserver"
)

// httpSession connects an SDK client over streamable HTTP; header is added
// to every request.
func httpSession(t *testing.T, endpoint string, header http.Header) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: addHeader{header: header, next: http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type addHeader struct {
	header http.Header
	next   http.RoundTripper
}

func (a addHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range a.header {
		r.Header[k] = v
	}
	return a.next.RoundTrip(r)
}

func TestHTTPHandler(t *testing.T) {
	a := clienttest.Start(t)
	for _, stateless := range []bool{true, false} {
		name := map[bool]string{true: "stateless", false: "sessions"}[stateless]
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(mcpserver.Handler(client.New(a.Web().URL()), mcpserver.WithStateless(stateless)))
			t.Cleanup(srv.Close)
			tenant := "http-" + name
			// The endpoint's query chooses the tenant and the namespace.
			cs := httpSession(t, srv.URL+"/?tenant="+tenant+"&namespace=proj", nil)
			out, _ := mustCall[mcpserver.LearnOutput](t, cs, "memory_learn", map[string]any{"content": "The staging database is called orders-stg"})
			got := find(recallFinds(t, cs, "what is the staging database called?", out.MemoryID), out.MemoryID)
			if got.Namespace != "proj" {
				t.Fatalf("learned into namespace %q, want proj", got.Namespace)
			}
			st, _ := mustCall[mcpserver.StatsOutput](t, cs, "memory_stats", nil)
			if st.Tenant != tenant || st.Memories != 1 {
				t.Fatalf("stats %+v, want one memory of %s", st, tenant)
			}
			// A header wins over the query.
			other := httpSession(t, srv.URL+"/?tenant="+tenant, http.Header{mcpserver.HeaderTenant: {"someone-else"}})
			if st, _ := mustCall[mcpserver.StatsOutput](t, other, "memory_stats", nil); st.Tenant != "someone-else" || st.Memories != 0 {
				t.Fatalf("stats with the tenant header %+v", st)
			}
		})
	}
}

func TestHTTPHandlerForwardsAPIKey(t *testing.T) {
	const key = "mcp-key-0123456789abcdef"
	file := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(file, []byte("- {key: "+key+", tenant: keyed, rate_limit: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := clienttest.Start(t, func(cfg *app.Config) { cfg.Auth.KeysFile = file })
	// The handler's own client has no key: only the caller's can work.
	srv := httptest.NewServer(mcpserver.Handler(client.New(a.Web().URL())))
	t.Cleanup(srv.Close)

	keyed := httpSession(t, srv.URL, http.Header{"Authorization": {"Bearer " + key}})
	if st, _ := mustCall[mcpserver.StatsOutput](t, keyed, "memory_stats", nil); st.Tenant != "keyed" {
		t.Fatalf("stats with the key answered tenant %q, want keyed", st.Tenant)
	}
	anonymous := httpSession(t, srv.URL, nil)
	if _, txt, isErr := call[mcpserver.StatsOutput](t, anonymous, "memory_stats", nil); !isErr || !strings.Contains(txt, "401") {
		t.Fatalf("stats without a key: error %v, %q", isErr, txt)
	}
}
