package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/web"
)

// Bounds of POST /v1/import. The whole body is validated before anything
// is written (all or nothing), but not held whole in memory: validated
// records wait in a spool (SetImportSpool) of bounded memory that spills
// to a temporary file, then are written importBatch at a time. A request is bounded by MaxImportBytes;
// `recollect import` splits bigger files into requests under it.
const (
	MaxImportBytes  = 32 << 20
	MaxImportErrors = 100
	importBatch     = 256
	importEmbed     = 64
)

// ImportResponse is the answer of POST /v1/import: how many records were
// written and how many were already stored unchanged (skipped). On 400,
// nothing was written; Errors lists the bad lines (the first
// MaxImportErrors) and Error, Code and Field are those of web.Error.
type ImportResponse struct {
	Imported int `json:"imported"`
	Skipped  int `json:"skipped"`
	// Redacted counts records stored with a secret redacted, Quarantined
	// those this import quarantined (see screen).
	Redacted    int                  `json:"redacted,omitempty"`
	Quarantined int                  `json:"quarantined,omitempty"`
	Errors      []snapshot.LineError `json:"errors"`
	Error       string               `json:"error,omitempty"`
	Code        string               `json:"code,omitempty"`
	Field       string               `json:"field,omitempty"`
}

// SetImportRules sets what import checks beyond a record's own validity:
// how far into the future its timestamps may lie (memory.DefaultMaxFutureSkew
// when zero) and which domains the registry knows (any well-formed domain
// when nil).
func (q *Query) SetImportRules(maxFutureSkew time.Duration, knownDomain func(string) bool) {
	q.maxFutureSkew, q.knownDomain = maxFutureSkew, knownDomain
}

// SetEmbedder gives the module the embedding model of the store and the
// embedder's way of turning a memory into a vector (embedder.Vectorizer),
// which import needs for records without a vector of that model.
func (q *Query) SetEmbedder(model embed.Embedder, vectors *embedder.Vectorizer) {
	q.model, q.vectors = model, vectors
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// importMemories stores an NDJSON stream of memories for the caller's
// tenant: every record's tenant is replaced by it, whatever the file says.
// All or nothing for validation: every line is read and checked first, and
// any bad line (or a line over snapshot.MaxLineBytes, or a body over
// MaxImportBytes) answers 400 with nothing written. The checked records
// wait in a spool (bounded memory, then a temporary file); then they are
// upserted by id in batches, which is idempotent: after a failure
// midway, sending the same stream again is safe. Records without a vector,
// or with one of another model or width, are embedded again; records
// already stored with every field equal are skipped. Every record passes
// the explicit-memory filters first (see screen): secrets are redacted,
// instructions aimed at the model quarantined.
func (q *Query) importMemories(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	sp := newSpool(q.spool)
	q.release.begin()
	defer func() {
		q.release.end(sp.large())
		if err := sp.close(); err != nil {
			q.log.WarnContext(r.Context(), "remove import spool", "tenant", tenant, "error", err)
		}
	}()
	rules := snapshot.Rules{Now: q.now(), MaxFutureSkew: q.maxFutureSkew, KnownDomain: q.knownDomain}
	bad, err := q.readImport(w, r, tenant, rules, sp)
	if err != nil {
		var se *spoolError
		if errors.As(err, &se) {
			// The server's disk, not the body: a client may try again.
			q.log.ErrorContext(r.Context(), "import memories (nothing written)", "tenant", tenant, "error", se.err)
			web.Unavailable(w, web.RetryAfter, fmt.Errorf("import memories (nothing written): %w", se.err))
			return
		}
		rejectImport(w, "bad_request", "", nil, err)
		return
	}
	if len(bad) > 0 {
		rejectImport(w, "invalid_import", fmt.Sprintf("line %d", bad[0].Line), bad,
			fmt.Errorf("%d bad lines, nothing imported; first: %w", len(bad), &bad[0]))
		return
	}
	resp, err := q.applyImport(r.Context(), tenant, rules, sp)
	if err != nil {
		q.fail(w, r, fmt.Sprintf("import memories (%d written; sending the same stream again is safe)", resp.Imported), err)
		return
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

// spoolError is a failure of the server's own spool, not of the body.
type spoolError struct{ err error }

func (e *spoolError) Error() string { return e.err.Error() }

// readImport reads and validates the whole body, keeping its good records
// in sp. A body or line over its bound is an
// error; bad records are returned as line errors (the first
// MaxImportErrors). Once a line is bad, nothing more is spooled.
func (q *Query) readImport(w http.ResponseWriter, r *http.Request, tenant string, rules snapshot.Rules, sp *spool) ([]snapshot.LineError, error) {
	rd := snapshot.NewReader(http.MaxBytesReader(w, r.Body, MaxImportBytes), snapshot.MaxLineBytes)
	seen := snapshot.IDs{}
	var bad []snapshot.LineError
	failed := false
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return bad, nil
		}
		if err == nil {
			err = snapshot.Prepare(&m, tenant, rd.Line(), rules)
		}
		if err == nil {
			err = seen.Add(m.ID, rd.Line())
		}
		var le *snapshot.LineError
		var mbe *http.MaxBytesError
		var tl *snapshot.TooLongError
		switch {
		case errors.As(err, &tl):
			return nil, err
		case err == nil:
			if !failed {
				if err := sp.add(m, rd.Bytes()); err != nil {
					return nil, &spoolError{err}
				}
			}
		case errors.As(err, &le):
			failed = true
			if len(bad) < MaxImportErrors {
				bad = append(bad, *le)
			}
		case errors.As(err, &mbe):
			return nil, fmt.Errorf("import body is larger than %d bytes (at line %d); split it (recollect import does)", MaxImportBytes, rd.Line())
		default:
			return nil, fmt.Errorf("read import body: %w", err)
		}
	}
}

// applyImport writes the validated records of sp in batches, screening
// each first.
func (q *Query) applyImport(ctx context.Context, tenant string, rules snapshot.Rules, sp *spool) (ImportResponse, error) {
	resp := ImportResponse{Errors: []snapshot.LineError{}}
	batch := make([]memory.Memory, 0, importBatch)
	flush := func() error {
		written, skipped, err := q.importBatch(ctx, tenant, batch)
		resp.Imported += written
		resp.Skipped += skipped
		batch = batch[:0]
		return err
	}
	err := sp.each(tenant, rules, func(m memory.Memory) error {
		red, quar := screen(q.screen, &m)
		resp.Redacted += b2i(red)
		resp.Quarantined += b2i(quar)
		if batch = append(batch, m); len(batch) == importBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return resp, err
}

func rejectImport(w http.ResponseWriter, code, field string, bad []snapshot.LineError, err error) {
	if bad == nil {
		bad = []snapshot.LineError{}
	}
	var tl *snapshot.TooLongError
	if errors.As(err, &tl) {
		field = fmt.Sprintf("line %d", tl.Line)
	}
	web.WriteJSON(w, http.StatusBadRequest, ImportResponse{Errors: bad, Error: err.Error(), Code: code, Field: field})
}

// importBatch embeds what needs it, skips records stored unchanged, writes
// the rest and announces them. It returns how many it wrote and skipped.
func (q *Query) importBatch(ctx context.Context, tenant string, batch []memory.Memory) (int, int, error) {
	write := make([]memory.Memory, 0, len(batch))
	ops := make([]memory.StoredOp, 0, len(batch))
	skipped := 0
	for _, m := range batch {
		cur, err := q.store.Get(ctx, tenant, m.ID)
		switch {
		case err == nil && q.unchanged(cur, m):
			skipped++
			continue
		case err == nil:
			ops = append(ops, memory.StoredUpdated)
		case errors.Is(err, store.ErrNotFound):
			ops = append(ops, memory.StoredInserted)
		default:
			return 0, skipped, fmt.Errorf("look up memory %s: %w", m.ID, err)
		}
		write = append(write, m)
	}
	if err := q.embedMissing(ctx, tenant, write); err != nil {
		return 0, skipped, err
	}
	if len(write) == 0 {
		return 0, skipped, nil
	}
	if err := q.store.Upsert(ctx, write); err != nil {
		return 0, skipped, fmt.Errorf("store %d memories: %w", len(write), err)
	}
	q.announceImported(ctx, tenant, write, ops)
	return len(write), skipped, nil
}

// needsVector reports whether a record must be embedded by this server's
// model: it has no vector, or one of another model or width, or it is long
// and lacks its chunk vectors (exports leave them out).
func (q *Query) needsVector(m memory.Memory) bool {
	return len(m.Vector) == 0 || q.model == nil || m.EmbeddingModel != q.model.Model() || len(m.Vector) != q.model.Dim() ||
		q.vectors != nil && len(m.ChunkVectors) == 0 && q.vectors.Chunked(m)
}

// embedMissing embeds, in place, the records that need a vector.
func (q *Query) embedMissing(ctx context.Context, tenant string, mems []memory.Memory) error {
	var idx []int
	for i := range mems {
		if q.needsVector(mems[i]) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if q.model == nil || q.vectors == nil {
		return errors.New("embed imported memories: this query service has no embedding model")
	}
	for start := 0; start < len(idx); start += importEmbed {
		part := idx[start:min(start+importEmbed, len(idx))]
		batch := make([]memory.Memory, len(part))
		for j, i := range part {
			batch[j] = mems[i]
		}
		embs, err := q.vectors.Embeddings(usage.WithTenant(ctx, tenant), batch)
		if err != nil {
			return fmt.Errorf("embed %d imported memories: %w", len(batch), err)
		}
		for j, i := range part {
			embs[j].Apply(&mems[i])
			mems[i].EmbeddingModel = q.model.Model()
		}
	}
	return nil
}

// unchanged reports whether importing m would leave the stored cur as it
// is: cur has a vector of this server's model and every other field agrees
// (a record that would be embedded again agrees on the model when cur has
// this server's).
func (q *Query) unchanged(cur, m memory.Memory) bool {
	if q.needsVector(cur) {
		return false
	}
	if q.needsVector(m) {
		m.EmbeddingModel = cur.EmbeddingModel
	}
	return sameRecord(cur, m)
}

// sameRecord reports whether two records agree on every field but the
// vector (times as instants).
func sameRecord(a, b memory.Memory) bool {
	ja, erra := json.Marshal(comparableForm(a))
	jb, errb := json.Marshal(comparableForm(b))
	return erra == nil && errb == nil && string(ja) == string(jb)
}

func comparableForm(m memory.Memory) memory.Memory {
	m.Vector = nil
	utc := func(t time.Time) time.Time { return t.UTC() }
	m.CreatedAt, m.ModifiedAt, m.LastAccessed, m.ValidFrom = utc(m.CreatedAt), utc(m.ModifiedAt), utc(m.LastAccessed), utc(m.ValidFrom)
	if m.InvalidAt != nil {
		v := m.InvalidAt.UTC()
		m.InvalidAt = &v
	}
	if m.ValidUntil != nil {
		v := m.ValidUntil.UTC()
		m.ValidUntil = &v
	}
	return m
}

// announceImported publishes what the import wrote on the tenant's stored
// subject, so topics and consolidation see it; a failure is logged, the
// import stands.
func (q *Query) announceImported(ctx context.Context, tenant string, mems []memory.Memory, ops []memory.StoredOp) {
	msgs := make([]bus.Msg, 0, len(mems))
	for i, m := range mems {
		data, err := json.Marshal(memory.StoredEvent{Tenant: tenant, ID: m.ID, Op: ops[i], Domain: m.Domain, State: memory.StoredState(&m)})
		if err != nil {
			continue
		}
		// The record's content names the message: importing a changed
		// record announces it again, resending the same one does not.
		rec, err := json.Marshal(comparableForm(m))
		if err != nil {
			continue
		}
		id := "imported:" + tenant + ":" + m.ID + ":" + memory.DeterministicID(string(rec))
		msgs = append(msgs, bus.Msg{Subject: bus.StoredSubject(tenant), ID: id, Data: data})
	}
	if err := q.pub.PublishBatch(ctx, msgs); err != nil {
		q.log.WarnContext(ctx, "announce imported memories", "tenant", tenant, "error", err)
	}
}
