package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/topics"
)

const (
	tenantA   = "tenant-a"
	tenantB   = "tenant-b"
	keyA      = "tenancy-key-of-tenant-a-0001"
	keyB      = "tenancy-key-of-tenant-b-0002"
	keyAdmin  = "tenancy-key-of-the-admin-0003"
	keySlow   = "tenancy-key-rate-limited-0004"
	namespace = "secret-project" // B's namespace
)

// bKey is the key B learns a memory under; A recalling by it gets nothing
// of B's.
const bKey = "launch/quokka-code"

// bContent is what tenant B stores; "quokka" and "zanzibar" appear in
// nothing of A's, so finding them in an answer to A is a leak.
var bContent = []string{
	"The quokka launch code lives in the zanzibar vault",
	"Zanzibar deploys happen on quokka Thursdays",
	"Quokka invoices go to the zanzibar finance team",
}

// apiClient calls the API with one bearer key (none when key is empty).
type apiClient struct {
	t    *testing.T
	base string
	key  string
}

type answer struct {
	code   int
	header http.Header
	body   string
}

func (c apiClient) do(method, path string, body any) answer {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return answer{code: resp.StatusCode, header: resp.Header, body: string(data)}
}

// json calls and decodes a 2xx answer into out, failing on another status.
func (c apiClient) json(method, path string, body, out any, want int) {
	c.t.Helper()
	a := c.do(method, path, body)
	if a.code != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, a.code, a.body, want)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(a.body), out); err != nil {
			c.t.Fatalf("%s %s: decode %s: %v", method, path, a.body, err)
		}
	}
}

func startWithKeys(t *testing.T) *app.App {
	t.Helper()
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	file := fmt.Sprintf(`
- key: %s
  tenant: %s
  name: agent-a
- sha256: %s
  tenant: %s
  name: agent-b
- key: %s
  tenant: tenant-slow
  name: slow
  rate_limit: 0.001
  rate_burst: 1
`, keyA, tenantA, sha256Hex(keyB), tenantB, keySlow)
	if err := os.WriteFile(keysFile, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Topiary.Debounce = 200 * time.Millisecond
	cfg.Auth.KeysFile = keysFile
	cfg.Auth.Keys = keyAdmin + "=ops:admin" // the RECOLLECT_API_KEYS form
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	return a
}

func memoryEvent(id, tenant, ns, content string) map[string]any {
	e := map[string]any{"id": id, "type": "memory", "subject": "alice", "memory": map[string]any{"content": content, "type": "fact"}}
	if tenant != "" {
		e["tenant"] = tenant
	}
	if ns != "" {
		e["namespace"] = ns
	}
	return e
}

// TestTenancy stores memories for two tenants and then tries every
// endpoint as tenant A against tenant B's ids, namespace, topics and name.
func TestTenancy(t *testing.T) {
	srv := startWithKeys(t)
	base := srv.Web().URL()
	anon := apiClient{t: t, base: base}
	asA := apiClient{t: t, base: base, key: keyA}
	asB := apiClient{t: t, base: base, key: keyB}
	admin := apiClient{t: t, base: base, key: keyAdmin}

	t.Run("probes are open, the API is not", func(t *testing.T) {
		anon.t = t
		for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
			if a := anon.do("GET", p, nil); a.code != http.StatusOK {
				t.Fatalf("GET %s without a key: %d %s", p, a.code, a.body)
			}
		}
		wrong := apiClient{t: t, base: base, key: keyA + "-wrong"}
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/v1/events", memoryEvent("x", "", "", "anything at all")},
			{"POST", "/v1/recall", map[string]any{"query": "anything"}},
			{"POST", "/v1/topics", map[string]any{}},
			{"POST", "/v1/consolidate", map[string]any{}},
			{"GET", "/v1/memories", nil},
			{"POST", "/v1/memories", map[string]any{"content": "anything at all"}},
			{"GET", "/v1/memories/some-id", nil},
			{"DELETE", "/v1/memories/some-id", nil},
			{"GET", "/v1/stats", nil},
		} {
			for _, c := range []apiClient{anon, wrong} {
				a := c.do(r.method, r.path, r.body)
				if a.code != http.StatusUnauthorized || !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(a.body, `"code":"unauthorized"`) {
					t.Fatalf("%s %s with key %q: %d %q %s, want 401 with a Bearer challenge", r.method, r.path, c.key, a.code, a.header.Get("WWW-Authenticate"), a.body)
				}
			}
		}
	})

	// A's memories: one with no tenant named (the key's tenant applies),
	// one naming its own tenant, one learnt. B's: one posted by B into its
	// namespace, one learnt by B, one posted for B by the admin.
	asA.json("POST", "/v1/events", memoryEvent("a-1", "", "", "Acme builds use the gizmo toolchain"), nil, http.StatusAccepted)
	asA.json("POST", "/v1/events", memoryEvent("a-2", tenantA, "", "Acme releases ship on Mondays"), nil, http.StatusAccepted)
	asA.json("POST", "/v1/memories", map[string]any{"content": "Acme staging runs in the north region", "type": "fact"}, nil, http.StatusAccepted)
	asB.json("POST", "/v1/events", memoryEvent("b-1", tenantB, namespace, bContent[0]), nil, http.StatusAccepted)
	asB.json("POST", "/v1/memories", map[string]any{"content": bContent[1], "type": "fact", "namespace": namespace, "key": bKey}, nil, http.StatusAccepted)
	admin.json("POST", "/v1/events", memoryEvent("b-3", tenantB, "", bContent[2]), nil, http.StatusAccepted)

	list := func(c apiClient, tenant string) query.ListResponse {
		var l query.ListResponse
		c.json("GET", "/v1/memories?archived=true&tenant="+tenant, nil, &l, http.StatusOK)
		return l
	}
	eventually(t, 90*time.Second, "three memories stored for each tenant", func() error {
		for _, tenant := range []string{tenantA, tenantB} {
			if n := len(list(admin, tenant).Memories); n != 3 {
				return fmt.Errorf("%s has %d memories, want 3", tenant, n)
			}
		}
		return nil
	})
	var stats query.Stats
	admin.json("GET", "/v1/stats?tenant=default", nil, &stats, http.StatusOK)
	if stats.Memories != 0 {
		t.Fatalf("tenant default has %d memories: an event without a tenant did not get its key's", stats.Memories)
	}
	bMems := list(asB, "").Memories
	if len(bMems) != 3 {
		t.Fatalf("B lists %d of its memories, want 3", len(bMems))
	}
	aMems := list(asA, "").Memories
	var bTree query.TopicsResponse
	eventually(t, 60*time.Second, "B's topic tree", func() error {
		asB.json("POST", "/v1/topics", map[string]any{}, &bTree, http.StatusOK)
		if bTree.Memories != 3 || len(bTree.Topics) == 0 {
			return fmt.Errorf("B's tree has %d memories and %d topics", bTree.Memories, len(bTree.Topics))
		}
		return nil
	})

	// Everything of B's that must never reach A, unless A sent it itself.
	secrets := []string{"quokka", "zanzibar", namespace, tenantB}
	var bIDs, bTopicIDs []string
	for _, m := range bMems {
		bIDs = append(bIDs, m.ID)
	}
	var walk func(ns []*topics.Node)
	walk = func(ns []*topics.Node) {
		for _, n := range ns {
			bTopicIDs = append(bTopicIDs, n.ID)
			if n.Name != "" {
				secrets = append(secrets, n.Name)
			}
			walk(n.Children)
		}
	}
	walk(bTree.Topics)
	secrets = append(secrets, bIDs...)
	secrets = append(secrets, bTopicIDs...)
	// probe calls as A and fails when the answer holds any of B's secrets
	// the request did not carry.
	probe := func(t *testing.T, method, path string, body any, want int) answer {
		t.Helper()
		c := asA
		c.t = t
		a := c.do(method, path, body)
		if a.code != want {
			t.Fatalf("as A: %s %s %v: %d %s, want %d", method, path, body, a.code, a.body, want)
		}
		sent, _ := json.Marshal(body)
		request := strings.ToLower(path + string(sent))
		for _, s := range secrets {
			s = strings.ToLower(s)
			if strings.Contains(strings.ToLower(a.body), s) && !strings.Contains(request, s) {
				t.Fatalf("as A: %s %s leaks %q of tenant B: %s", method, path, s, a.body)
			}
		}
		if want == http.StatusForbidden && (!strings.Contains(a.body, `"code":"forbidden"`) || !strings.Contains(a.body, `bound to tenant \"`+tenantA+`\" and may not act for tenant`)) {
			t.Fatalf("as A: %s %s: 403 body %s does not name A's tenant and the one requested", method, path, a.body)
		}
		return a
	}

	t.Run("ingest", func(t *testing.T) {
		probe(t, "POST", "/v1/events", memoryEvent("a-x1", tenantB, "", "Acme planted this in B"), http.StatusForbidden)
		batch := map[string]any{"events": []any{
			memoryEvent("a-x2", "", "", "Acme batch that was refused whole"),
			memoryEvent("a-x3", tenantB, "", "Acme planted this in B too"),
		}}
		a := probe(t, "POST", "/v1/events", batch, http.StatusForbidden)
		if !strings.Contains(a.body, "events[1].tenant") {
			t.Fatalf("403 does not name the event: %s", a.body)
		}
		probe(t, "POST", "/v1/events", memoryEvent("a-x4", "TENANT-B", "", "Acme tries another spelling"), http.StatusForbidden)
		probe(t, "POST", "/v1/events", memoryEvent("a-x5", memory.DefaultTenant, "", "Acme tries the default tenant"), http.StatusForbidden)
		// The ingest counted the refusals as forbidden, not invalid.
		metrics := anon.do("GET", "/metrics", nil).body
		if !strings.Contains(metrics, `recollect_ingest_requests_rejected_total{reason="forbidden"} 4`) {
			t.Fatalf("metrics lack four forbidden ingest requests:\n%s", grepLines(metrics, "rejected"))
		}
	})

	t.Run("recall", func(t *testing.T) {
		probe(t, "POST", "/v1/recall", map[string]any{"tenant": tenantB, "query": "quokka launch code"}, http.StatusForbidden)
		for _, req := range []map[string]any{
			{"query": "where is the quokka launch code?"},
			{"query": "zanzibar deploys on quokka thursdays", "namespace": namespace},
			{"query": "quokka", "filters": map[string]any{"subjects": []string{"alice"}, "include_archived": true}, "k": 100, "per_domain": 100},
			{"tenant": tenantA, "query": "zanzibar finance team", "dry": true},
			{"key": bKey},
			{"key": bKey, "namespace": namespace, "filters": map[string]any{"include_archived": true}},
		} {
			var resp recall.Response
			a := probe(t, "POST", "/v1/recall", req, http.StatusOK)
			if err := json.Unmarshal([]byte(a.body), &resp); err != nil {
				t.Fatal(err)
			}
			for _, r := range resp.Memories {
				if r.Memory.Tenant != tenantA {
					t.Fatalf("recall as A returned a memory of tenant %q", r.Memory.Tenant)
				}
			}
		}
		// The same key works for B: A's empty answer is isolation, not a miss.
		var own recall.Response
		asB.json("POST", "/v1/recall", map[string]any{"key": bKey, "namespace": namespace}, &own, http.StatusOK)
		if len(own.Memories) != 1 || !own.Memories[0].KeyMatch || own.Memories[0].Memory.Content != bContent[1] {
			t.Fatalf("B's recall by its own key: %+v", own.Memories)
		}
	})

	t.Run("topics", func(t *testing.T) {
		probe(t, "POST", "/v1/topics", map[string]any{"tenant": tenantB}, http.StatusForbidden)
		probe(t, "POST", "/v1/topics", map[string]any{"tenant": tenantB, "ids": bTopicIDs}, http.StatusForbidden)
		var tr query.TopicsResponse
		a := probe(t, "POST", "/v1/topics", map[string]any{"ids": bTopicIDs}, http.StatusOK)
		if err := json.Unmarshal([]byte(a.body), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Tenant != tenantA || len(tr.Topics) != 0 || len(tr.Missing) != len(bTopicIDs) {
			t.Fatalf("A drilling into B's topic ids: %s", a.body)
		}
		probe(t, "POST", "/v1/topics", map[string]any{}, http.StatusOK)
	})

	t.Run("consolidate", func(t *testing.T) {
		probe(t, "POST", "/v1/consolidate", map[string]any{"tenant": tenantB}, http.StatusForbidden)
		a := probe(t, "POST", "/v1/consolidate", map[string]any{}, http.StatusAccepted)
		if !strings.Contains(a.body, `"tenant":"`+tenantA+`"`) {
			t.Fatalf("consolidation without a tenant ran for %s, want %s", a.body, tenantA)
		}
	})

	t.Run("memories list", func(t *testing.T) {
		probe(t, "GET", "/v1/memories?tenant="+tenantB, nil, http.StatusForbidden)
		probe(t, "GET", "/v1/memories?tenant="+tenantB+"&namespace="+namespace, nil, http.StatusForbidden)
		var l query.ListResponse
		a := probe(t, "GET", "/v1/memories?namespace="+namespace+"&archived=true", nil, http.StatusOK)
		if err := json.Unmarshal([]byte(a.body), &l); err != nil || len(l.Memories) != 0 {
			t.Fatalf("A listing B's namespace: %s (%v)", a.body, err)
		}
		a = probe(t, "GET", "/v1/memories?archived=true&limit=1000", nil, http.StatusOK)
		if err := json.Unmarshal([]byte(a.body), &l); err != nil || len(l.Memories) != len(aMems) {
			t.Fatalf("A lists %d memories, want its %d: %s", len(l.Memories), len(aMems), a.body)
		}
		for _, m := range l.Memories {
			if m.Tenant != tenantA {
				t.Fatalf("A listed a memory of tenant %q", m.Tenant)
			}
		}
		// Paging after B's ids shows only A's.
		probe(t, "GET", "/v1/memories?after="+bIDs[0], nil, http.StatusOK)
	})

	t.Run("memories get and delete", func(t *testing.T) {
		unknown := memory.MemoryID(tenantB, namespace, "alice", "a memory nobody stored")
		for _, id := range bIDs {
			// B's id as A: the same 404 as an id that does not exist.
			got := probe(t, "GET", "/v1/memories/"+id, nil, http.StatusNotFound)
			none := probe(t, "GET", "/v1/memories/"+unknown, nil, http.StatusNotFound)
			if strings.ReplaceAll(got.body, id, "ID") != strings.ReplaceAll(none.body, unknown, "ID") {
				t.Fatalf("404 for B's id differs from 404 for no id:\n%s\n%s", got.body, none.body)
			}
			// Naming B: 403 whether the id exists or not.
			got = probe(t, "GET", "/v1/memories/"+id+"?tenant="+tenantB, nil, http.StatusForbidden)
			none = probe(t, "GET", "/v1/memories/"+unknown+"?tenant="+tenantB, nil, http.StatusForbidden)
			if got.body != none.body {
				t.Fatalf("403 for B's id differs from 403 for no id:\n%s\n%s", got.body, none.body)
			}
			probe(t, "DELETE", "/v1/memories/"+id, nil, http.StatusNotFound)
			probe(t, "DELETE", "/v1/memories/"+id+"?tenant="+tenantB, nil, http.StatusForbidden)
		}
		// B still has every memory, and B cannot read A's either.
		if n := len(list(asB, "").Memories); n != 3 {
			t.Fatalf("B has %d memories after A's deletes, want 3", n)
		}
		for _, id := range bIDs {
			asB.json("GET", "/v1/memories/"+id, nil, nil, http.StatusOK)
		}
		for _, m := range aMems {
			if a := asB.do("GET", "/v1/memories/"+m.ID, nil); a.code != http.StatusNotFound || strings.Contains(a.body, "Acme") {
				t.Fatalf("B reading A's memory: %d %s", a.code, a.body)
			}
		}
	})

	t.Run("learn", func(t *testing.T) {
		probe(t, "POST", "/v1/memories", map[string]any{"tenant": tenantB, "content": "Acme planted a learnt memory in B"}, http.StatusForbidden)
	})

	t.Run("stats", func(t *testing.T) {
		probe(t, "GET", "/v1/stats?tenant="+tenantB, nil, http.StatusForbidden)
		var s query.Stats
		a := probe(t, "GET", "/v1/stats", nil, http.StatusOK)
		if err := json.Unmarshal([]byte(a.body), &s); err != nil || s.Tenant != tenantA || s.Memories != len(aMems) {
			t.Fatalf("A's stats: %s (%v)", a.body, err)
		}
	})

	t.Run("admin acts for both", func(t *testing.T) {
		admin.t = t
		for _, tc := range []struct {
			tenant, query, want string
		}{{tenantA, "which toolchain do acme builds use?", "gizmo"}, {tenantB, "where is the quokka launch code?", "quokka"}} {
			var resp recall.Response
			admin.json("POST", "/v1/recall", map[string]any{"tenant": tc.tenant, "namespace": namespace, "query": tc.query}, &resp, http.StatusOK)
			if len(resp.Memories) == 0 || !strings.Contains(strings.ToLower(resp.Memories[0].Memory.Content), tc.want) || resp.Memories[0].Memory.Tenant != tc.tenant {
				t.Fatalf("admin recall for %s: %+v", tc.tenant, resp.Memories)
			}
		}
		admin.json("GET", "/v1/memories/"+bIDs[0]+"?tenant="+tenantB, nil, nil, http.StatusOK)
		admin.json("GET", "/v1/memories/"+aMems[0].ID+"?tenant="+tenantA, nil, nil, http.StatusOK)
		var s query.Stats
		admin.json("GET", "/v1/stats", nil, &s, http.StatusOK)
		if s.Tenant != "ops" {
			t.Fatalf("admin without a tenant acts for %q, want its own tenant ops", s.Tenant)
		}
	})

	t.Run("rate limit", func(t *testing.T) {
		slow := apiClient{t: t, base: base, key: keySlow}
		slow.json("GET", "/v1/stats", nil, nil, http.StatusOK)
		a := slow.do("GET", "/v1/stats", nil)
		retry, err := strconv.Atoi(a.header.Get("Retry-After"))
		if a.code != http.StatusTooManyRequests || err != nil || retry < 1 || !strings.Contains(a.body, `"code":"rate_limited"`) {
			t.Fatalf("second request of a 0.001/s key: %d Retry-After=%q %s", a.code, a.header.Get("Retry-After"), a.body)
		}
		// Other keys keep their own budget.
		asB.json("GET", "/v1/stats", nil, nil, http.StatusOK)
	})

	// Nothing A tried to plant reached B or A's store, and the batch refused
	// whole stored none of its events: A's later event is stored and the
	// refused ones are not.
	asA.json("POST", "/v1/events", memoryEvent("a-last", "", "", "Acme sentinel after the refused batch"), nil, http.StatusAccepted)
	eventually(t, 60*time.Second, "A's sentinel stored", func() error {
		for _, m := range list(admin, tenantA).Memories {
			if strings.Contains(m.Content, "sentinel") {
				return nil
			}
		}
		return fmt.Errorf("not yet")
	})
	for _, tenant := range []string{tenantA, tenantB, memory.DefaultTenant, "TENANT-B"} {
		for _, m := range list(admin, tenant).Memories {
			if strings.Contains(m.Content, "planted") || strings.Contains(m.Content, "refused whole") || strings.Contains(m.Content, "tries") {
				t.Fatalf("a refused event was stored in %s: %q", tenant, m.Content)
			}
		}
	}
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestStartRefusesExposedAPIWithoutKeys checks the startup rule through
// App.Start: nothing binds when a reachable API would have no keys.
func TestStartRefusesExposedAPIWithoutKeys(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mod     func(*app.Config)
		wantErr string
	}{
		{"all interfaces", func(c *app.Config) { c.Web.Addr = "0.0.0.0:0" }, "is not a loopback address and no API keys are configured"},
		{"split query", func(c *app.Config) { c.Targets = []string{app.TargetQuery}; c.Bus.URL = "nats://127.0.0.1:1" }, "serve the API of a split deployment"},
		{"split ingest", func(c *app.Config) { c.Targets = []string{app.TargetIngest}; c.Bus.URL = "nats://127.0.0.1:1" }, "--insecure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg app.Config
			cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
			cfg.DataDir = t.TempDir()
			cfg.Web.Addr = "127.0.0.1:0"
			tc.mod(&cfg)
			a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			err = a.Start(context.Background())
			if err == nil {
				_ = a.Stop(context.Background())
				t.Fatal("started without keys")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
