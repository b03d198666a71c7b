package promptctx

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/web"
)

func TestRoutes(t *testing.T) {
	e := scenario(t)
	mux := http.NewServeMux()
	// The tenant comes from the "API key", here the X-Tenant header; a
	// request naming another tenant is refused.
	resolve := func(ctx context.Context, requested string) (string, error) {
		key, _ := ctx.Value(keyCtx{}).(string)
		if requested != "" && requested != key {
			return "", errors.New("tenant does not match the api key")
		}
		return key, nil
	}
	e.a.Routes(mux.Handle, resolve)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, r.Header.Get("X-Tenant"))))
	}))
	defer srv.Close()

	do := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Tenant", "acme")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}

	t.Run("context", func(t *testing.T) {
		code, data := do("POST", "/v1/context", `{"query": "How do we deploy the billing service?", "subject": "alice", "budget": 300}`)
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, data)
		}
		var resp ContextResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			t.Fatal(err)
		}
		checkContext(t, loadBPE(t), resp)
		if resp.Budget != 300 || !strings.Contains(resp.Context, polSecrets) || resp.Layers[LayerBaseline] == 0 {
			t.Fatalf("unexpected answer: %+v", resp)
		}
		if strings.Contains(string(data), `"vector"`) {
			t.Fatalf("vectors leaked into the answer")
		}
	})
	t.Run("resume", func(t *testing.T) {
		code, data := do("GET", "/v1/resume?namespace=default&session_id=s1&budget=500", "")
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, data)
		}
		var resp ResumeResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Budget != 500 || resp.Tokens > 500 || !strings.Contains(resp.Text, "=== Recent (24h) ===") {
			t.Fatalf("unexpected answer: %+v", resp)
		}
	})
	for _, c := range []struct {
		name, method, path, body string
		code                     int
		field                    string
	}{
		{"context unknown field", "POST", "/v1/context", `{"querry": "x"}`, http.StatusBadRequest, "querry"},
		{"context two objects", "POST", "/v1/context", `{"budget": 300}{"budget": 400}`, http.StatusBadRequest, "body"},
		{"context trailing data", "POST", "/v1/context", `{"budget": 300} xyz`, http.StatusBadRequest, "body"},
		{"context duplicate key", "POST", "/v1/context", `{"budget": 300, "budget": 400}`, http.StatusBadRequest, "budget"},
		{"context empty body", "POST", "/v1/context", ``, http.StatusBadRequest, "body"},
		{"context bad budget", "POST", "/v1/context", `{"budget": -3}`, http.StatusBadRequest, "budget"},
		{"context other tenant", "POST", "/v1/context", `{"tenant": "globex"}`, http.StatusForbidden, ""},
		{"resume bad budget", "GET", "/v1/resume?budget=lots", "", http.StatusBadRequest, "budget"},
		{"resume bad namespace", "GET", "/v1/resume?namespace=a%20b", "", http.StatusBadRequest, "namespace"},
		{"resume other tenant", "GET", "/v1/resume?tenant=globex", "", http.StatusForbidden, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, data := do(c.method, c.path, c.body)
			var body web.Error
			if err := json.Unmarshal(data, &body); err != nil {
				t.Fatalf("status %d, body %s: %v", code, data, err)
			}
			if code != c.code || body.Field != c.field {
				t.Fatalf("status %d field %q, want %d %q: %s", code, body.Field, c.code, c.field, data)
			}
		})
	}
}

type keyCtx struct{}

func TestRoutesDefaultTenant(t *testing.T) {
	e := newEnv(t)
	e.put(t, mem(polSecrets, memory.TypePolicy, func(m *memory.Memory) { m.Tenant = memory.DefaultTenant }))
	mux := http.NewServeMux()
	e.a.Routes(mux.Handle, nil)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/context", strings.NewReader(`{}`)))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), polSecrets) {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}
