package query

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/web"
)

// TestRequestBodiesAreStrict is the query doors' table: recall, learn and
// topics bodies with trailing data, a repeated key or an unknown field
// answer 400 naming the field (or the body).
func TestRequestBodiesAreStrict(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ name, path, body, field, want string }{
		{"recall two objects", "/v1/recall", `{"query":"a"}{"query":"b"}`, "body", "data after the JSON value"},
		{"recall ndjson", "/v1/recall", "{\"query\":\"a\"}\n{\"query\":\"b\"}\n", "body", "data after the JSON value"},
		{"recall trailing garbage", "/v1/recall", `{"query":"a"} xyz`, "body", "data after the JSON value"},
		{"recall duplicate key", "/v1/recall", `{"query":"a","query":"b"}`, "query", "appears twice"},
		{"recall keys differing in case", "/v1/recall", `{"query":"a","Query":"b"}`, "Query", "differ only in case"},
		{"recall unknown field", "/v1/recall", `{"query":"a","querry":"b"}`, "querry", "not a known field"},
		{"recall wrong type", "/v1/recall", `{"query":"a","k":"ten"}`, "k", "must be a int"},
		{"recall empty body", "/v1/recall", ``, "body", "is empty"},
		{"learn duplicate key", "/v1/memories", `{"content":"a","content":"b"}`, "content", "appears twice"},
		{"learn unknown field", "/v1/memories", `{"content":"a","colour":"red"}`, "colour", "not a known field"},
		{"learn trailing data", "/v1/memories", `{"content":"a"}]`, "body", "data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(h.url+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body web.Error
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("status %d without a JSON error: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != http.StatusBadRequest || body.Field != tt.field || !strings.Contains(body.Error, tt.want) {
				t.Fatalf("answered %d %+v, want 400 on %q containing %q", resp.StatusCode, body, tt.field, tt.want)
			}
		})
	}
}
