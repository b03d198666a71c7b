package query

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestImportRefusesWhatIngestRefuses is the import door's table: each body
// answers 400 naming the line and the field, and stores nothing.
func TestImportRefusesWhatIngestRefuses(t *testing.T) {
	vz, err := embedder.NewVectorizer(termEmbedder{}, embedder.Config{ShortContent: 300, Chunk: chunk.DefaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	reg := domains.Builtin()
	h := newHarness(t, func(q *Query) {
		q.SetEmbedder(termEmbedder{}, vz)
		q.SetImportRules(time.Hour, reg.Known)
	})
	good := func() memory.Memory { return fixture("m-good", "acme") }
	with := func(f func(m *memory.Memory)) []byte {
		m := good()
		m.ID = "m-bad"
		f(&m)
		return ndjson(t, m)
	}
	goodLine := string(ndjson(t, good()))
	goodObj := strings.TrimSpace(goodLine)
	farFuture := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		body       string
		field, msg string
	}{
		{"two objects on a line", goodObj + goodObj + "\n", "", "data after the JSON value"},
		{"trailing garbage", goodObj + " xyz\n", "", "data after the JSON value"},
		{"duplicate key", `{"id":"a","id":"b"}` + "\n", "id", "appears twice"},
		{"unknown field", `{"id":"a","colour":"red"}` + "\n", "colour", "not a known field"},
		{"importance 1e308", string(with(func(m *memory.Memory) { m.Importance = 1e308 })), "importance", "between 0 and 1"},
		{"negative importance", string(with(func(m *memory.Memory) { m.Importance = -0.1 })), "importance", "between 0 and 1"},
		{"confidence over 1", string(with(func(m *memory.Memory) { m.Confidence = 1.5 })), "confidence", "between 0 and 1"},
		{"negative access count", string(with(func(m *memory.Memory) { m.AccessCount = -1 })), "access_count", "must not be negative"},
		{"negative repetition count", string(with(func(m *memory.Memory) { m.RepetitionCount = -5 })), "repetition_count", "must not be negative"},
		{"negative success count", string(with(func(m *memory.Memory) { m.SuccessCount = -2 })), "success_count", "must not be negative"},
		{"id of 10,000 characters", string(with(func(m *memory.Memory) { m.ID = strings.Repeat("a", 10000) })), "id", "1-128 characters"},
		{"path id", string(with(func(m *memory.Memory) { m.ID = "../../x" })), "id", "1-128 characters"},
		{"id with a space", string(with(func(m *memory.Memory) { m.ID = "a b" })), "id", "1-128 characters"},
		{"path domain", string(with(func(m *memory.Memory) { m.Domain = "../../etc" })), "domain", "lowercase letters"},
		{"domain not in the registry", string(with(func(m *memory.Memory) { m.Domain = "astrology" })), "domain", "not in the domain registry"},
		{"created_at in 9999", string(with(func(m *memory.Memory) { m.CreatedAt = farFuture })), "created_at", "in the future"},
		{"modified_at in 9999", string(with(func(m *memory.Memory) { m.ModifiedAt = farFuture })), "modified_at", "in the future"},
		{"created_at before 1970", string(with(func(m *memory.Memory) { m.CreatedAt = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) })), "created_at", "before 1970"},
		{"last_accessed before 1970", string(with(func(m *memory.Memory) {
			m.LastAccessed = time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)
		})), "last_accessed", "before 1970"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, resp := h.importBody(t, "acme", []byte(goodLine+tt.body))
			if code != http.StatusBadRequest || resp.Code != "invalid_import" || resp.Field != "line 2" || len(resp.Errors) != 1 {
				t.Fatalf("answered %d %+v, want 400 invalid_import at line 2", code, resp)
			}
			if e := resp.Errors[0]; e.Line != 2 || e.Field != tt.field || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("error %+v, want line 2 field %q message containing %q", e, tt.field, tt.msg)
			}
			if _, err := h.store.Get(context.Background(), "acme", "m-good"); err == nil {
				t.Fatal("the good record of a refused stream was stored")
			}
		})
	}
	t.Run("a record inside the window and the registry is imported", func(t *testing.T) {
		m := good()
		m.CreatedAt = time.Now().Add(30 * time.Minute)
		m.ModifiedAt = m.CreatedAt
		code, resp := h.importBody(t, "acme", ndjson(t, m))
		if code != http.StatusOK || resp.Imported != 1 {
			t.Fatalf("answered %d %+v", code, resp)
		}
	})
}
