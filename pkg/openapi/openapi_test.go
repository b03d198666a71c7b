package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/mcpserver"
	"github.com/recollect-dev/recollect/pkg/web"
)

const testKey = "openapi-test-key-acme"

var methods = []string{"get", "put", "post", "delete", "patch", "head", "options"}

// startApp runs every module in this process with an API key and the MCP
// endpoint mounted, as `recollect run` does.
func startApp(t *testing.T) *app.App {
	t.Helper()
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("openapi", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Auth.Keys = testKey + "=acme"
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mcp := app.WithQueryRoutes(func(handle func(string, http.Handler), baseURL string) {
		handle("/mcp", mcpserver.Handler(client.New(baseURL, client.WithAPIKey(testKey)), mcpserver.WithLogger(log)))
	})
	a, err := app.New(cfg, log, mcp)
	if err != nil {
		t.Fatalf("build app: %v", err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatalf("start app: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stop app: %v", err)
		}
	})
	return a
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func send(t *testing.T, method, url, key string, body []byte) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatalf("build %s %s: %v", method, url, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}
}

// operation is one documented path and method.
type operation struct {
	method, path string
	op           map[string]any
}

func operations(d doc) []operation {
	var out []operation
	for path, item := range d.obj("paths") {
		for _, m := range methods {
			if op, ok := item.(map[string]any)[m].(map[string]any); ok {
				out = append(out, operation{method: strings.ToUpper(m), path: path, op: op})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

// isMuxMiss reports whether a 404 or 405 came from the router (plain text)
// rather than from a handler (a JSON error body with a code).
func isMuxMiss(r reply) bool {
	if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed {
		return false
	}
	// The listener answers a router miss in JSON too, with its own codes.
	var e web.Error
	return json.Unmarshal(r.body, &e) != nil || e.Code == "" || e.Code == "no_route" || e.Code == "method_not_allowed"
}

// checkDocumented asserts the status is documented for op and, for a JSON
// body, that it validates against the documented schema.
func checkDocumented(t *testing.T, d doc, o operation, r reply) {
	t.Helper()
	resp, ok := d.obj("paths", o.path, strings.ToLower(o.method), "responses")[strconv.Itoa(r.status)].(map[string]any)
	if !ok {
		t.Fatalf("%s %s answered %d, which is not documented: %s", o.method, o.path, r.status, r.body)
	}
	resp = d.resolve(resp)
	if r.status == http.StatusTooManyRequests || r.status == http.StatusServiceUnavailable {
		if _, ok := resp["headers"].(map[string]any)["Retry-After"]; !ok {
			t.Errorf("%d of %s %s documents no Retry-After", r.status, o.method, o.path)
		}
	}
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if mt != "application/json" || len(r.body) == 0 {
		return
	}
	schema, ok := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if !ok {
		t.Fatalf("%s %s %d: JSON body but no documented JSON schema", o.method, o.path, r.status)
	}
	v, err := decode(r.body)
	if err != nil {
		t.Fatalf("%s %s %d: body is not JSON: %v", o.method, o.path, r.status, err)
	}
	if err := d.validate(schema, v, "body"); err != nil {
		t.Errorf("%s %s %d: body does not match the documented schema: %v\n%s", o.method, o.path, r.status, err, r.body)
	}
}

func TestOpenAPIAgainstServer(t *testing.T) {
	a := startApp(t)
	base := a.Web().URL()

	// Served without a key, like the probes.
	got := send(t, http.MethodGet, base+"/openapi.json", "", nil)
	if got.status != http.StatusOK || !strings.HasPrefix(got.header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /openapi.json: %d %s", got.status, got.header.Get("Content-Type"))
	}
	d := parseDocument(t, got.body)
	ops := operations(d)
	if len(ops) < 15 {
		t.Fatalf("only %d operations documented", len(ops))
	}

	t.Run("documented routes exist", func(t *testing.T) {
		for _, o := range ops {
			t.Run(o.method+" "+o.path, func(t *testing.T) {
				url := base + strings.ReplaceAll(o.path, "{id}", "openapi-test-missing")
				var body []byte
				if _, ok := o.op["requestBody"]; ok {
					// An unknown field: every JSON handler refuses it, so
					// nothing is written.
					body = []byte(`{"openapi_test_unknown_field": true}`)
				}
				r := send(t, o.method, url, testKey, body)
				if isMuxMiss(r) {
					t.Fatalf("the server has no route for it: %d %s", r.status, r.body)
				}
				checkDocumented(t, d, o, r)
			})
		}
	})

	t.Run("security matches the middleware", func(t *testing.T) {
		for _, o := range ops {
			t.Run(o.method+" "+o.path, func(t *testing.T) {
				url := base + strings.ReplaceAll(o.path, "{id}", "openapi-test-missing")
				r := send(t, o.method, url, "", nil)
				sec, declared := o.op["security"].([]any)
				open := declared && len(sec) == 0
				if open == (r.status == http.StatusUnauthorized) {
					t.Fatalf("documented open=%v, answered %d without a key", open, r.status)
				}
				checkDocumented(t, d, o, r)
			})
		}
	})

	t.Run("a router miss is told apart", func(t *testing.T) {
		r := send(t, http.MethodGet, base+"/v1/openapi-test-no-such-route", testKey, nil)
		if !isMuxMiss(r) {
			t.Fatalf("an unknown route answered %d %s", r.status, r.body)
		}
		r = send(t, http.MethodPut, base+"/v1/recall", testKey, nil)
		if !isMuxMiss(r) {
			t.Fatalf("a wrong method answered %d %s", r.status, r.body)
		}
	})

	t.Run("registered routes are documented", func(t *testing.T) {
		patterns := a.Web().Patterns()
		for _, want := range []string{"POST /v1/events", "POST /v1/recall", "GET /healthz", "GET /openapi.json", "/mcp"} {
			if !slices.Contains(patterns, want) {
				t.Fatalf("pattern %q is not registered: %v", want, patterns)
			}
		}
		registered := map[string]bool{}
		for _, p := range patterns {
			method, path, ok := strings.Cut(p, " ")
			if !ok { // no method: every method; documented by its path
				path = method
				item := d.obj("paths", path)
				if item == nil {
					t.Errorf("route %q is not documented", p)
				}
				for _, m := range methods {
					if item[m] != nil {
						registered[strings.ToUpper(m)+" "+path] = true
					}
				}
				continue
			}
			registered[p] = true
			if d.obj("paths", path, strings.ToLower(method)) == nil {
				t.Errorf("route %q is not documented", p)
			}
		}
		for _, o := range ops {
			if !registered[o.method+" "+o.path] {
				t.Errorf("%s %s is documented but not registered", o.method, o.path)
			}
		}
	})

	t.Run("recall round trip", func(t *testing.T) {
		recallOp := operation{method: http.MethodPost, path: "/v1/recall"}
		reqSchema := d.obj("paths", "/v1/recall", "post", "requestBody", "content", "application/json", "schema")
		learnOp := operation{method: http.MethodPost, path: "/v1/memories"}
		learn := []byte(`{"content": "The deploy script lives in tools/deploy.sh and must run from the repository root", "type": "fact", "tags": ["deploy"]}`)
		lr := send(t, http.MethodPost, base+"/v1/memories", testKey, learn)
		if lr.status != http.StatusAccepted {
			t.Fatalf("learn: %d %s", lr.status, lr.body)
		}
		checkDocumented(t, d, learnOp, lr)

		reqBody := []byte(`{"query": "where does the deploy script live?", "k": 5}`)
		reqV, _ := decode(reqBody)
		if err := d.validate(reqSchema, reqV, "request"); err != nil {
			t.Fatalf("a valid recall request fails the documented schema: %v", err)
		}
		bad, _ := decode([]byte(`{"query": "x", "nope": 1}`))
		if err := d.validate(reqSchema, bad, "request"); err == nil {
			t.Fatal("the request schema accepts an unknown field the handler refuses")
		}

		var last reply
		clienttest.Eventually(t, 30*time.Second, "recall the learned memory", func() error {
			last = send(t, http.MethodPost, base+"/v1/recall", testKey, reqBody)
			if last.status != http.StatusOK {
				return &httpErr{last}
			}
			var resp struct {
				Memories []json.RawMessage `json:"memories"`
			}
			if err := json.Unmarshal(last.body, &resp); err != nil || len(resp.Memories) == 0 {
				return &httpErr{last}
			}
			return nil
		})
		checkDocumented(t, d, recallOp, last)
		// And explicitly: every required top-level property is there.
		var top map[string]any
		if err := json.Unmarshal(last.body, &top); err != nil {
			t.Fatalf("recall body: %v", err)
		}
		required := asStrings(d.obj("components", "schemas", "RecallResponse")["required"])
		if len(required) == 0 {
			t.Fatal("RecallResponse documents no required properties")
		}
		for _, r := range required {
			if _, ok := top[r]; !ok {
				t.Errorf("recall response lacks required %q", r)
			}
		}
	})
}

type httpErr struct{ r reply }

func (e *httpErr) Error() string { return strconv.Itoa(e.r.status) + " " + string(e.r.body) }
