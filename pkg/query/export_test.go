package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

// newImportHarness is the query harness with the term embedder also
// vectorising imports; setup runs after.
func newImportHarness(t *testing.T, setup ...func(*Query)) *harness {
	t.Helper()
	vz, err := embedder.NewVectorizer(termEmbedder{}, embedder.Config{ShortContent: 300, Chunk: chunk.DefaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, append([]func(*Query){func(q *Query) { q.SetEmbedder(termEmbedder{}, vz) }}, setup...)...)
}

// ndjson encodes records one per line.
func ndjson(t *testing.T, mems ...memory.Memory) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, m := range mems {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func (h *harness) importBody(t *testing.T, tenant string, body []byte) (int, ImportResponse) {
	t.Helper()
	resp, err := http.Post(h.url+"/v1/import?tenant="+tenant, snapshot.ContentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out ImportResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("import answered %d without a JSON summary: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// export reads a whole export and its trailers.
func (h *harness) export(t *testing.T, query string) ([]memory.Memory, http.Header) {
	t.Helper()
	resp, err := http.Get(h.url + "/v1/export?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != snapshot.ContentType {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("export answered %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	rd := snapshot.NewReader(resp.Body, 0)
	var out []memory.Memory
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out, resp.Trailer
}

func fixture(id, tenant string) memory.Memory {
	base := time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)
	return storetest.FullMemory(id, tenant, base, nil)
}

func TestImportExport(t *testing.T) {
	h := newImportHarness(t)
	full := fixture("m-full", "someone-else") // the file's tenant is never trusted
	plain := fixture("m-plain", "")
	plain.Namespace, plain.Archived, plain.InvalidAt, plain.Content = "other", false, nil, "Deploys go to staging first"
	withVec := fixture("m-vec", "acme")
	withVec.Content = "The build runs make test"
	vecs, _ := termEmbedder{}.Embed(context.Background(), []string{withVec.Content})
	withVec.Vector, withVec.EmbeddingModel = vecs[0], termEmbedder{}.Model()

	t.Run("import stores every record under the caller's tenant", func(t *testing.T) {
		code, resp := h.importBody(t, "acme", ndjson(t, full, plain, withVec))
		if code != http.StatusOK || resp.Imported != 3 || resp.Skipped != 0 || len(resp.Errors) != 0 {
			t.Fatalf("import answered %d %+v", code, resp)
		}
		if _, err := h.store.Get(context.Background(), "someone-else", full.ID); err == nil {
			t.Fatal("a record was stored under the tenant its file named")
		}
		got, err := h.store.Get(context.Background(), "acme", full.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The fixture's vector was of another model: embedded again here.
		want, _ := termEmbedder{}.Embed(context.Background(), []string{full.Key + ": " + full.Content})
		if got.EmbeddingModel != "terms" || !closeVectors(got.Vector, want[0]) {
			t.Fatalf("stored vector of model %q (%d dims), want the term model's of key and content", got.EmbeddingModel, len(got.Vector))
		}
	})

	t.Run("export streams every field in id order", func(t *testing.T) {
		mems, trailer := h.export(t, "tenant=acme")
		if trailer.Get(ExportCountTrailer) != "3" || trailer.Get(ExportErrorTrailer) != "" {
			t.Fatalf("trailers %v, want count 3 and no error", trailer)
		}
		ids := make([]string, len(mems))
		for i, m := range mems {
			ids[i] = m.ID
			if len(m.Vector) != 0 {
				t.Errorf("%s exported with a vector without vectors=true", m.ID)
			}
		}
		if !slices.Equal(ids, []string{"m-full", "m-plain", "m-vec"}) {
			t.Fatalf("exported %v", ids)
		}
		want := full
		want.Tenant, want.Vector, want.EmbeddingModel = "acme", nil, "terms"
		if a, b := marshal(t, comparableForm(mems[0])), marshal(t, comparableForm(want)); a != b {
			t.Fatalf("exported\n%s\nwant\n%s", a, b)
		}
	})

	t.Run("export options", func(t *testing.T) {
		mems, _ := h.export(t, "tenant=acme&namespace_prefix=proj/&vectors=true")
		if len(mems) != 2 || mems[0].ID != "m-full" || mems[1].ID != "m-vec" {
			t.Fatalf("prefix proj/ exported %d memories, want m-full and m-vec", len(mems))
		}
		for _, m := range mems {
			if len(m.Vector) != termDim {
				t.Fatalf("%s exported with %d dims, want %d with vectors=true", m.ID, len(m.Vector), termDim)
			}
		}
		mems, trailer := h.export(t, "tenant=nobody")
		if len(mems) != 0 || trailer.Get(ExportCountTrailer) != "0" {
			t.Fatalf("an empty tenant exported %d memories, trailers %v", len(mems), trailer)
		}
		code := h.do(t, http.MethodGet, "/v1/export?tenant=acme&namespace_prefix="+strings.Repeat("p", 65), nil, nil)
		if code != http.StatusBadRequest {
			t.Fatalf("a long prefix answered %d", code)
		}
	})

	t.Run("import again skips unchanged records", func(t *testing.T) {
		code, resp := h.importBody(t, "acme", ndjson(t, full, plain, withVec))
		if code != http.StatusOK || resp.Imported != 0 || resp.Skipped != 3 {
			t.Fatalf("re-import answered %d %+v, want 3 skipped", code, resp)
		}
		changed := plain
		changed.Importance = 0.25
		code, resp = h.importBody(t, "acme", ndjson(t, full, changed))
		if code != http.StatusOK || resp.Imported != 1 || resp.Skipped != 1 {
			t.Fatalf("import of one changed record answered %d %+v", code, resp)
		}
		if got, _ := h.store.Get(context.Background(), "acme", plain.ID); got.Importance != 0.25 {
			t.Fatalf("importance %v after import, want 0.25", got.Importance)
		}
	})

	t.Run("bad lines reject the whole stream", func(t *testing.T) {
		fresh := fixture("m-fresh", "acme")
		noContent := fixture("m-bad", "acme")
		noContent.Content = ""
		body := append(ndjson(t, fresh), []byte("\n{\"id\": \"x\", \"surprise\": 1}\n")...)
		body = append(body, ndjson(t, noContent, fresh)...)
		code, resp := h.importBody(t, "acme", body)
		want := []snapshot.LineError{
			{Line: 3, Field: "surprise", Message: resp.Errors[0].Message},
			{Line: 4, Field: "content", Message: "is required"},
			{Line: 5, Field: "id", Message: "repeats the id of line 1"},
		}
		if code != http.StatusBadRequest || resp.Code != "invalid_import" || resp.Field != "line 3" || resp.Imported != 0 ||
			marshal(t, resp.Errors) != marshal(t, want) || !strings.Contains(resp.Errors[0].Message, "not a known field") {
			t.Fatalf("answered %d %+v", code, resp)
		}
		if !strings.Contains(resp.Error, "3 bad lines") || !strings.Contains(resp.Error, "line 3") {
			t.Fatalf("error %q does not say how many lines and which first", resp.Error)
		}
		if _, err := h.store.Get(context.Background(), "acme", fresh.ID); err == nil {
			t.Fatal("a valid record of a rejected stream was stored")
		}
	})

	t.Run("a line over the limit is named", func(t *testing.T) {
		long := fixture("m-long", "acme")
		long.Evidence = strings.Repeat("x", snapshot.MaxLineBytes)
		code, resp := h.importBody(t, "acme", append(ndjson(t, fixture("m-ok", "acme")), ndjson(t, long)...))
		if code != http.StatusBadRequest || resp.Field != "line 2" || !strings.Contains(resp.Error, strconv.Itoa(snapshot.MaxLineBytes)) {
			t.Fatalf("answered %d %+v", code, resp)
		}
		if _, err := h.store.Get(context.Background(), "acme", "m-ok"); err == nil {
			t.Fatal("a record before the long line was stored")
		}
	})

	t.Run("the stored subject hears of imports", func(t *testing.T) {
		// Imports publish on the tenant's stored subject, like every write.
		n, err := h.bus.JetStream().Stream(context.Background(), bus.StreamEvent)
		if err != nil {
			t.Fatal(err)
		}
		info, err := n.Info(context.Background(), jetstream.WithSubjectFilter(bus.StoredSubject("acme")))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.State.Subjects[bus.StoredSubject("acme")]; got < 4 {
			t.Fatalf("%d stored events for acme, want at least 4 (3 imported, 1 updated)", got)
		}
	})
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func closeVectors(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-5 || d < -1e-5 {
			return false
		}
	}
	return true
}
