package query

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
	"github.com/recollect-dev/recollect/pkg/web"
)

// Trailers of GET /v1/export. A stream is complete only when it ends with
// ExportCountTrailer; a store failure after the first line can no longer
// change the status, so it is reported in ExportErrorTrailer instead.
const (
	ExportCountTrailer = "Recollect-Export-Count"
	ExportErrorTrailer = "Recollect-Export-Error"
)

// exportFlushEvery bounds how many lines wait in the buffer, so a slow
// export still shows progress.
const exportFlushEvery = 256

// export streams the tenant's memories as NDJSON, one memory.Memory per
// line with every field, archived and superseded ones included, in id
// order; only namespace_prefix narrows it. Vectors are left out unless vectors=true.
// The store is scrolled page by page, never loaded whole.
func (q *Query) export(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	prefix := r.URL.Query().Get("namespace_prefix")
	if len(prefix) > memory.MaxNameChars {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "namespace_prefix",
			Reason: fmt.Sprintf("is longer than %d characters", memory.MaxNameChars)})
		return
	}
	vectors := r.URL.Query().Get("vectors") == "true"
	var bw *bufio.Writer
	n := 0
	err := q.store.Scroll(r.Context(), tenant, everything, func(m memory.Memory) error {
		if !strings.HasPrefix(m.Namespace, prefix) {
			return nil
		}
		if !vectors {
			m.Vector = nil
		}
		line, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("encode memory %s: %w", m.ID, err)
		}
		if bw == nil {
			bw = startExport(w)
		}
		bw.Write(line)
		if err := bw.WriteByte('\n'); err != nil {
			return fmt.Errorf("write memory %s: %w", m.ID, err)
		}
		if n++; n%exportFlushEvery == 0 {
			if err := bw.Flush(); err != nil {
				return fmt.Errorf("write memories: %w", err)
			}
			http.NewResponseController(w).Flush()
		}
		return nil
	})
	if err != nil && bw == nil {
		q.fail(w, r, "export memories", err)
		return
	}
	if bw == nil {
		bw = startExport(w)
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		if r.Context().Err() == nil {
			q.log.ErrorContext(r.Context(), "export memories", "tenant", tenant, "exported", n, "error", err)
		}
		w.Header().Set(ExportErrorTrailer, err.Error())
		return
	}
	w.Header().Set(ExportCountTrailer, strconv.Itoa(n))
}

// startExport sends the status and headers of a stream, announcing its
// trailers.
func startExport(w http.ResponseWriter) *bufio.Writer {
	h := w.Header()
	h.Set("Content-Type", snapshot.ContentType)
	h.Set("Cache-Control", "no-store")
	h.Set("Trailer", ExportCountTrailer+", "+ExportErrorTrailer)
	w.WriteHeader(http.StatusOK)
	return bufio.NewWriterSize(w, 64<<10)
}
