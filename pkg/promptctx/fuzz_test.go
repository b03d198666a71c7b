package promptctx

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
	"github.com/recollect-dev/recollect/pkg/web"
)

// FuzzContextRequest: POST /v1/context bodies never panic the decoder or
// the request's validation, refusals are *memory.FieldError naming a
// field, and a decoded request round-trips. Seeds:
// testdata/fuzz/FuzzContextRequest.
func FuzzContextRequest(f *testing.F) {
	f.Add([]byte(`{"tenant":"acme","query":"fix the build","file_path":"src/main.go","budget":600,"subject":"alice"}`))
	f.Add([]byte(`{"session_id":"s1"}`))
	a := &Assembler{cfg: DefaultConfig()}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req ContextRequest
		r := httptest.NewRequest(http.MethodPost, "/v1/context", strings.NewReader(string(body)))
		if err := web.DecodeJSON(httptest.NewRecorder(), r, &req); err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error %v (%T) names no field", err, err)
			}
			return
		}
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var back ContextRequest
		if err := strictjson.Unmarshal(raw, &back); err != nil || back != req {
			t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, back, req)
		}
		if err := a.normalizeContext(&req); err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("validation error %v (%T) names no field", err, err)
			}
		}
	})
}
