package query

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auditlog/jsonl"
	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/web"
)

const (
	acmeKey   = "audit-test-key-acme-000000"
	globexKey = "audit-test-key-globex-0000"
	adminKey  = "audit-test-key-admin-00000"
)

// auditServer serves GET /v1/audit from a real audit log behind the real
// API-key middleware; the log holds entries of acme and globex.
func auditServer(t *testing.T) (string, auditlog.Log) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	l, err := jsonl.Open(filepath.Join(t.TempDir(), "audit"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var es []auditlog.Entry
	for i, tenant := range []string{"acme", "globex", "acme", "acme"} {
		es = append(es, auditlog.Entry{
			Time: t0.Add(time.Duration(i) * time.Minute), Tenant: tenant, Epoch: fmt.Sprintf("e%d", i%2), Seq: int64(i),
			Phase: []string{"triage", "gate", "gate", "merge"}[i], Op: []string{"promote", "promote", "reject", "merge"}[i],
			MemoryIDs: []string{fmt.Sprintf("m%d", i)}, Applied: i != 2, Decider: auditlog.DeciderRule, Reason: fmt.Sprintf("%s-%d", tenant, i),
			Before: auditlog.Snapshot(memory.Memory{ID: fmt.Sprintf("m%d", i), Tenant: tenant, Content: "before"}),
		})
	}
	if err := l.Write(context.Background(), es); err != nil {
		t.Fatal(err)
	}
	authn, err := auth.New(auth.Config{Keys: acmeKey + "=acme," + globexKey + "=globex," + adminKey + "=ops:admin", RateBurst: 1}, nil, quiet, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	q := New(nil, nil, nil, nil, nil, quiet, time.Now)
	q.SetAudit(l)
	mux := http.NewServeMux()
	q.Routes(func(pattern string, h http.Handler) { mux.Handle(pattern, h) })
	srv := httptest.NewServer(authn.Middleware(mux))
	t.Cleanup(srv.Close)
	return srv.URL, l
}

func getAudit(t *testing.T, base, key, params string) (int, AuditResponse, web.Error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/audit?"+params, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var ok AuditResponse
	var bad web.Error
	if resp.StatusCode == http.StatusOK {
		err = json.Unmarshal(data, &ok)
	} else {
		err = json.Unmarshal(data, &bad)
	}
	if err != nil {
		t.Fatalf("GET /v1/audit?%s answered %d %s: %v", params, resp.StatusCode, data, err)
	}
	return resp.StatusCode, ok, bad
}

func reasonsOf(r AuditResponse) string {
	var out []string
	for _, e := range r.Entries {
		out = append(out, e.Reason)
	}
	return strings.Join(out, " ")
}

func TestAuditRoute(t *testing.T) {
	base, _ := auditServer(t)
	for _, tc := range []struct {
		name, key, params string
		tenant, want      string
	}{
		{"own tenant by default", acmeKey, "", "acme", "acme-3 acme-2 acme-0"},
		{"own tenant named", acmeKey, "tenant=acme", "acme", "acme-3 acme-2 acme-0"},
		{"the other tenant's key", globexKey, "", "globex", "globex-1"},
		{"admin names a tenant", adminKey, "tenant=globex", "globex", "globex-1"},
		{"admin's own tenant has none", adminKey, "", "ops", ""},
		{"phase", acmeKey, "phase=gate", "acme", "acme-2"},
		{"op", acmeKey, "op=promote", "acme", "acme-0"},
		{"memory", acmeKey, "memory=m3", "acme", "acme-3"},
		{"another tenant's memory", acmeKey, "memory=m1", "acme", ""},
		{"epoch", acmeKey, "epoch=e0", "acme", "acme-2 acme-0"},
		{"since", acmeKey, "since=2025-06-01T12:02:00Z", "acme", "acme-3 acme-2"},
		{"until", acmeKey, "until=" + url.QueryEscape("2025-06-01T14:02:00+02:00"), "acme", "acme-0"},
		{"limit", acmeKey, "limit=1", "acme", "acme-3"},
		{"limit at the maximum", acmeKey, fmt.Sprintf("limit=%d", auditlog.MaxLimit), "acme", "acme-3 acme-2 acme-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, resp, e := getAudit(t, base, tc.key, tc.params)
			if status != http.StatusOK {
				t.Fatalf("answered %d %+v", status, e)
			}
			if resp.Tenant != tc.tenant || reasonsOf(resp) != tc.want || resp.Entries == nil {
				t.Fatalf("answered tenant %q entries %q, want %q %q", resp.Tenant, reasonsOf(resp), tc.tenant, tc.want)
			}
		})
	}
	t.Run("before is kept", func(t *testing.T) {
		_, resp, _ := getAudit(t, base, acmeKey, "memory=m3")
		ms, err := auditlog.Memories(resp.Entries[0].Before)
		if err != nil || len(ms) != 1 || ms[0].Content != "before" {
			t.Fatalf("before = %s (%v)", resp.Entries[0].Before, err)
		}
	})
}

func TestAuditRouteRefuses(t *testing.T) {
	base, _ := auditServer(t)
	for _, tc := range []struct {
		name, key, params string
		status            int
		field, mention    string
	}{
		{"another tenant", acmeKey, "tenant=globex", http.StatusForbidden, "", "globex"},
		{"a malformed tenant", adminKey, "tenant=a%20b", http.StatusBadRequest, "tenant", "64"},
		{"limit zero", acmeKey, "limit=0", http.StatusBadRequest, "limit", "10000"},
		{"limit over the maximum", acmeKey, "limit=10001", http.StatusBadRequest, "limit", "10000"},
		{"limit not a number", acmeKey, "limit=ten", http.StatusBadRequest, "limit", "10000"},
		{"since not a time", acmeKey, "since=yesterday", http.StatusBadRequest, "since", "RFC 3339"},
		{"until not a time", acmeKey, "until=2025-06-01", http.StatusBadRequest, "until", "RFC 3339"},
		{"until before since", acmeKey, "since=2025-06-02T00:00:00Z&until=2025-06-01T00:00:00Z", http.StatusBadRequest, "until", "after since"},
		{"phase too long", acmeKey, "phase=" + strings.Repeat("p", auditlog.MaxNameChars+1), http.StatusBadRequest, "phase", "64"},
		{"memory id too long", acmeKey, "memory=" + strings.Repeat("m", memory.MaxIDChars+1), http.StatusBadRequest, "memory", "128"},
		{"epoch too long", acmeKey, "epoch=" + strings.Repeat("e", auditlog.MaxEpochChars+1), http.StatusBadRequest, "epoch", "256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, resp, e := getAudit(t, base, tc.key, tc.params)
			if status != tc.status || e.Field != tc.field || !strings.Contains(e.Error, tc.mention) {
				t.Fatalf("answered %d %+v %+v, want %d naming %q and %q", status, e, resp, tc.status, tc.field, tc.mention)
			}
		})
	}
}

func TestAuditRouteNeedsALog(t *testing.T) {
	q := New(nil, nil, nil, nil, nil, slog.New(slog.DiscardHandler), time.Now)
	var patterns []string
	q.Routes(func(pattern string, _ http.Handler) { patterns = append(patterns, pattern) })
	for _, p := range patterns {
		if strings.Contains(p, "/v1/audit") {
			t.Fatalf("GET /v1/audit mounted without an audit log: %v", patterns)
		}
	}
}
