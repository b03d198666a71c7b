package mcpserver

import (
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
)

// Headers by which an HTTP MCP request chooses its tenant and namespace
// (the endpoint's ?tenant= and ?namespace= set them too).
const (
	HeaderTenant    = "Recollect-Tenant"
	HeaderNamespace = "Recollect-Namespace"
)

// Handler serves the memory tools over MCP's streamable HTTP transport,
// calling the API through c; mount it at /mcp. Stateless by default (see
// WithStateless).
func Handler(c *client.Client, opts ...Option) http.Handler {
	o := newOptions(opts)
	s := newServer(c, o)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Stateless:      o.stateless,
		Logger:         o.log,
		SessionTimeout: o.sessionTimeout,
	})
	return scopeFromQuery(h)
}

// scopeFromQuery turns ?tenant= and ?namespace= of the endpoint URL into the
// scope headers, which tool calls see (the URL does not reach them), so that
// an MCP client configured with a URL alone can choose its scope.
func scopeFromQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		tenant, ns := q.Get("tenant"), q.Get("namespace")
		if (tenant == "" || r.Header.Get(HeaderTenant) != "") && (ns == "" || r.Header.Get(HeaderNamespace) != "") {
			next.ServeHTTP(w, r)
			return
		}
		r = r.Clone(r.Context())
		if tenant != "" && r.Header.Get(HeaderTenant) == "" {
			r.Header.Set(HeaderTenant, tenant)
		}
		if ns != "" && r.Header.Get(HeaderNamespace) == "" {
			r.Header.Set(HeaderNamespace, ns)
		}
		next.ServeHTTP(w, r)
	})
}

// clientFor is the client a tool call uses: the server's, with the HTTP
// request's bearer key and scope headers applied when it came over HTTP.
func (t *tools) clientFor(req *mcp.CallToolRequest) *client.Client {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return t.client
	}
	h := req.Extra.Header
	var opts []client.Option
	if key, ok := bearer(h.Get("Authorization")); ok {
		opts = append(opts, client.WithAPIKey(key))
	}
	if v := strings.TrimSpace(h.Get(HeaderTenant)); v != "" {
		opts = append(opts, client.WithTenant(v))
	}
	if v := strings.TrimSpace(h.Get(HeaderNamespace)); v != "" {
		opts = append(opts, client.WithNamespace(v))
	}
	if len(opts) == 0 {
		return t.client
	}
	return t.client.WithOptions(opts...)
}

// bearer extracts the token of "Authorization: Bearer <token>".
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
