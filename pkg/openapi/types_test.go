package openapi_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/openapi"
	"github.com/recollect-dev/recollect/pkg/promptctx"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/snapshot"
	"github.com/recollect-dev/recollect/pkg/temporal"
	"github.com/recollect-dev/recollect/pkg/topics"
	"github.com/recollect-dev/recollect/pkg/webhook"
)

func parseDocument(t *testing.T, data []byte) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("parse openapi.json: %v", err)
	}
	if d["openapi"] != "3.1.0" {
		t.Fatalf("openapi version %v, want 3.1.0", d["openapi"])
	}
	if v, _ := d.obj("info")["version"].(string); v == "" {
		t.Fatal("info.version is empty")
	}
	if s := d.obj("components", "securitySchemes", "bearer"); s["type"] != "http" || s["scheme"] != "bearer" {
		t.Fatalf("bearer security scheme: %v", s)
	}
	return d
}

// jsonFields lists a struct's JSON names (embedded structs flattened) and
// whether each is always present when encoded (no omitempty/omitzero).
func jsonFields(typ reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero")
	}
	return out
}

// TestSchemasMatchGoTypes keeps the hand-written schemas honest: each
// documents exactly the JSON fields of its Go type, and a response schema
// requires exactly the fields that are always encoded. The Go types are
// pkg/api's where the server aliases them; a server type with behaviour of
// its own is checked here, and its pkg/api mirror by TestAPIMirrors.
func TestSchemasMatchGoTypes(t *testing.T) {
	d := parseDocument(t, openapi.Document())
	tests := []struct {
		schema   string
		value    any
		response bool
	}{
		{"Error", api.Error{}, true},
		{"Event", memory.Event{}, false},
		{"Message", memory.Message{}, false},
		{"MemoryInput", memory.MemoryInput{}, false},
		{"Feedback", memory.Feedback{}, false},
		{"EventsResponse", api.EventsResponse{}, true},
		{"Memory", memory.Memory{}, true},
		{"RecallRequest", recall.Request{}, false},
		{"RecallFilters", recall.Filters{}, false},
		{"Weights", api.Weights{}, true},
		{"RecallResult", api.RecallResult{}, true},
		{"RecallResponse", recall.Response{}, true},
		{"RecallStep", api.RecallStep{}, true},
		{"RecallTime", recall.TimeInfo{}, true},
		{"TimeWindow", temporal.Window{}, true},
		{"ContextRequest", promptctx.ContextRequest{}, false},
		{"ContextResponse", api.ContextResponse{}, true},
		{"IncludedMemory", api.IncludedMemory{}, true},
		{"ResumeResponse", api.ResumeResponse{}, true},
		{"TopicSummary", api.TopicSummary{}, true},
		{"TopicsRequest", api.TopicsRequest{}, false},
		{"TopicsResponse", query.TopicsResponse{}, true},
		{"TopicDetail", api.TopicDetail{}, true},
		{"TopicNode", topics.Node{}, true},
		{"ConsolidateRequest", api.ConsolidateRequest{}, false},
		{"ConsolidateResponse", api.ConsolidateResponse{}, true},
		{"ReindexRequest", api.ReindexRequest{}, false},
		{"ReindexResponse", api.ReindexResponse{}, true},
		{"ReindexStatus", query.ReindexStatus{}, true},
		{"LearnRequest", api.LearnRequest{}, false},
		{"ListResponse", api.ListResponse{}, true},
		{"Stats", api.Stats{}, true},
		{"TranscriptStats", api.TranscriptStats{}, true},
		{"UsageResponse", api.UsageResponse{}, true},
		{"UsageTotal", api.UsageTotal{}, true},
		{"AuditResponse", query.AuditResponse{}, true},
		{"AuditEntry", auditlog.Entry{}, true},
		{"LearnResponse", api.LearnResponse{}, true},
		{"DeleteResponse", query.DeleteResponse{}, true},
		{"ErasureReceipt", erase.Receipt{}, true},
		{"ErasurePlace", api.ErasurePlace{}, true},
		{"History", api.History{}, true},
		{"HistoryVersion", api.HistoryVersion{}, true},
		{"ImportResponse", query.ImportResponse{}, false},
		{"WebhookCreateRequest", webhook.CreateRequest{}, false},
		{"Webhook", webhook.View{}, true},
		{"WebhookList", webhook.ListResponse{}, true},
		{"LineError", snapshot.LineError{}, true},
		{"WhoAmI", api.WhoAmI{}, true},
		{"TenantsResponse", api.TenantsResponse{}, true},
		{"TenantSummary", api.TenantSummary{}, true},
		{"QuarantineRequest", api.QuarantineRequest{}, false},
		{"QuarantineResponse", api.QuarantineResponse{}, true},
		{"Pipeline", api.Pipeline{}, true},
		{"ModuleState", api.ModuleState{}, true},
		{"StreamState", api.StreamState{}, true},
		{"ConsumerLag", api.ConsumerLag{}, true},
		{"DeadLetter", api.DeadLetter{}, true},
	}
	documented := d.obj("components", "schemas")
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			covered[tt.schema] = true
			s := d.obj("components", "schemas", tt.schema)
			if s == nil {
				t.Fatalf("schema %s is not documented", tt.schema)
			}
			fields := jsonFields(reflect.TypeOf(tt.value))
			props, _ := s["properties"].(map[string]any)
			for name := range fields {
				if _, ok := props[name]; !ok {
					t.Errorf("field %q of the Go type is not documented", name)
				}
			}
			for name := range props {
				if _, ok := fields[name]; !ok && !acceptsAlias(tt.value, name) {
					t.Errorf("documented property %q is not a field of the Go type", name)
				}
			}
			required := asStrings(s["required"])
			for _, r := range required {
				if _, ok := fields[r]; !ok {
					t.Errorf("required property %q is not a field", r)
				}
			}
			if !tt.response {
				return
			}
			for name, always := range fields {
				if always != slices.Contains(required, name) {
					t.Errorf("property %q: always encoded %v, but required %v", name, always, !always)
				}
			}
		})
	}
	// Schemas without a Go type of their own are composites or envelopes.
	for name := range documented {
		switch {
		case covered[name], name == "EventBatch":
		default:
			t.Errorf("schema %s is not checked against a Go type", name)
		}
	}
}

// aliases are documented request properties that a type's UnmarshalJSON
// accepts as another name for one of its fields.
var aliases = map[string][]string{
	"recall.Filters": {"archived"},
}

// acceptsAlias reports whether name is a documented alias of v's type
// that the type really decodes: the alias set to true reads back as a
// change from the zero value.
func acceptsAlias(v any, name string) bool {
	typ := reflect.TypeOf(v)
	if !slices.Contains(aliases[typ.String()], name) {
		return false
	}
	p := reflect.New(typ)
	if err := json.Unmarshal([]byte(`{"`+name+`": true}`), p.Interface()); err != nil {
		return false
	}
	return !p.Elem().IsZero()
}

// TestEventLimits pins the documented event limits to memory's constants.
func TestEventLimits(t *testing.T) {
	d := parseDocument(t, openapi.Document())
	num := func(s map[string]any, k string) int {
		f, _ := s[k].(float64)
		return int(f)
	}
	ev := d.obj("components", "schemas", "Event", "properties")
	in := d.obj("components", "schemas", "MemoryInput", "properties")
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"event content maxLength", num(ev["content"].(map[string]any), "maxLength"), memory.MaxContentChars},
		{"event id maxLength", num(ev["id"].(map[string]any), "maxLength"), memory.MaxIDChars},
		{"event subject maxLength", num(ev["subject"].(map[string]any), "maxLength"), memory.MaxNameChars},
		{"memory content maxLength", num(in["content"].(map[string]any), "maxLength"), memory.MaxContentChars},
		{"memory key maxLength", num(in["key"].(map[string]any), "maxLength"), memory.MaxKeyChars},
		{"memory tags maxItems", num(in["tags"].(map[string]any), "maxItems"), memory.MaxTags},
		{"memory tag maxLength", num(in["tags"].(map[string]any)["items"].(map[string]any), "maxLength"), memory.MaxTagChars},
		{"batch maxItems", num(d.obj("components", "schemas", "EventBatch", "properties", "events"), "maxItems"), memory.MaxEventsBatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("documented %d, code says %d", tt.got, tt.want)
			}
		})
	}
}
