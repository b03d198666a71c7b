package openapi_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/promptctx"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/snapshot"
	"github.com/recollect-dev/recollect/pkg/temporal"
	"github.com/recollect-dev/recollect/pkg/topics"
)

// TestAPIMirrors keeps pkg/api's mirrors of server types (those with
// behaviour of their own, so not aliases) encoding exactly like them: the
// same JSON and Go field names, omit options and value shapes, all the
// way down.
func TestAPIMirrors(t *testing.T) {
	pairs := []struct{ api, server any }{
		{api.RecallRequest{}, recall.Request{}},
		{api.RecallFilters{}, recall.Filters{}},
		{api.Instant{}, recall.Instant{}},
		{api.RecallResponse{}, recall.Response{}},
		{api.RecallTime{}, recall.TimeInfo{}},
		{api.TimeWindow{}, temporal.Window{}},
		{api.ContextRequest{}, promptctx.ContextRequest{}},
		{api.TopicsResponse{}, query.TopicsResponse{}},
		{api.TopicNode{}, topics.Node{}},
		{api.DeleteResponse{}, query.DeleteResponse{}},
		{api.ErasureReceipt{}, erase.Receipt{}},
		{api.ImportResponse{}, query.ImportResponse{}},
		{api.LineError{}, snapshot.LineError{}},
		{api.ReindexStatus{}, embedder.ReindexStatus{}},
		{api.AuditResponse{}, query.AuditResponse{}},
		{api.AuditEntry{}, auditlog.Entry{}},
	}
	for _, p := range pairs {
		a, s := reflect.TypeOf(p.api), reflect.TypeOf(p.server)
		t.Run(a.Name(), func(t *testing.T) {
			if a == s {
				t.Fatalf("%s is the server's type itself: drop it from the mirrors", a)
			}
			if got, want := shape(a, map[reflect.Type]bool{}), shape(s, map[reflect.Type]bool{}); got != want {
				t.Errorf("%s encodes unlike %s:\n api    %s\n server %s", a, s, got, want)
			}
		})
	}
	// The state constants the mirrors' methods read are the server's.
	for _, c := range [][2]string{
		{api.ErasureRunning, erase.StateRunning}, {api.ErasureComplete, erase.StateComplete},
		{api.ErasureIncomplete, erase.StateIncomplete}, {api.ErasurePending, erase.StatePending},
		{api.ErasureErased, erase.StateErased}, {api.ErasureFailed, erase.StateFailed},
		{api.ErasureNotErased, erase.StateNotErased},
		{api.ReindexQueued, embedder.ReindexQueued}, {api.ReindexAdopting, embedder.ReindexAdopting},
		{api.ReindexRunning, embedder.ReindexRunning}, {api.ReindexDone, embedder.ReindexDone},
		{api.ReindexFailed, embedder.ReindexFailed},
		{api.ExportCountTrailer, query.ExportCountTrailer}, {api.ExportErrorTrailer, query.ExportErrorTrailer},
		{api.NDJSONContentType, snapshot.ContentType},
	} {
		if c[0] != c[1] {
			t.Errorf("api constant %q, the server's %q", c[0], c[1])
		}
	}
}

// shape describes how a type encodes as JSON, and the Go names callers
// write: a struct by its fields' JSON and Go names, omit options and
// shapes (embedded structs flattened), other
// types by kind; types with their own encoding (time.Time and structs
// embedding it, json.RawMessage) by name.
func shape(t reflect.Type, seen map[reflect.Type]bool) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "time"
	case t == reflect.TypeFor[json.RawMessage]():
		return "raw"
	case t == reflect.TypeFor[time.Duration]():
		return "int64"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + shape(t.Elem(), seen)
	case reflect.Slice:
		return "[]" + shape(t.Elem(), seen)
	case reflect.Map:
		return "map[" + shape(t.Key(), seen) + "]" + shape(t.Elem(), seen)
	case reflect.Struct:
	default:
		return t.Kind().String()
	}
	if f, ok := t.FieldByName("Time"); ok && f.Anonymous && f.Type == reflect.TypeFor[time.Time]() {
		return "time"
	}
	if seen[t] {
		return "recursive"
	}
	seen[t] = true
	defer delete(seen, t)
	var fields []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields = append(fields, fmt.Sprintf("%s(%s),%s:%s", name, f.Name, opts, shape(f.Type, seen)))
		}
	}
	walk(t)
	slices.Sort(fields)
	return "{" + strings.Join(fields, " ") + "}"
}
