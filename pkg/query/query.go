// Package query is the query module: recall, topic drill-down, memory
// inspection and deletion, stats and consolidation requests over HTTP.
package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/ingest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/topics"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/web"
)

// everything is the filter of reads that mean every memory a tenant holds,
// archived, superseded and quarantined ones too: export, stats, history and
// the user's own deletions.
var everything = store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}

// Publisher is what the query module needs of the bus.
type Publisher interface {
	Publish(ctx context.Context, m bus.Msg) error
	PublishBatch(ctx context.Context, ms []bus.Msg) error
}

// TreeLoader reads topic trees.
type TreeLoader interface {
	Load(ctx context.Context, tenant string) (topics.Tree, error)
}

// Query is the query module's HTTP surface.
type Query struct {
	// screen is the explicit-memory filter imports pass (see screen).
	screen   *filter.Filter
	recaller *recall.Recaller
	store    store.Store
	pub      Publisher
	trees    TreeLoader
	log      *slog.Logger
	now      func() time.Time
	// deleted counts the user's hard deletes, by how they were asked for
	// (id, namespace_prefix, subject): the only deletes besides the
	// operator's archived retention.
	deleted *prometheus.CounterVec
	tokens  *tokenCache // counts content tokens for stats
	// maxFutureSkew and knownDomain are import's rules (SetImportRules).
	maxFutureSkew time.Duration
	knownDomain   func(string) bool
	// spool is where import bodies wait while validated (SetImportSpool).
	spool spoolConfig
	// release returns what large imports freed to the OS (SetImportRelease).
	release *releaser
	// model and vectors embed imported records (SetEmbedder).
	model   embed.Embedder
	vectors *embedder.Vectorizer
	// audit reads the consolidation audit log (SetAudit).
	audit auditlog.Reader
	// auditW records operators' quarantine reviews (SetAuditWriter).
	auditW auditlog.Writer
	// usage reads the model usage log (SetUsage).
	usage usage.Reader
	// triageMinAge is the consolidator's (SetTriageMinAge).
	triageMinAge time.Duration
	// reindexes records and reads reindex requests' state
	// (SetReindexStatuses).
	reindexes *embedder.ReindexStatuses
	// waiters are the learns with wait=true, answered from the stored
	// events fed to OnStored.
	waiters *storedWaiters
	// eraser carries a subject purge beyond the store (SetEraser).
	eraser *erase.Eraser
}

// New builds the module.
func New(r *recall.Recaller, st store.Store, pub Publisher, trees TreeLoader, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) *Query {
	q := &Query{recaller: r, store: st, pub: pub, trees: trees, log: log, now: now, tokens: newTokenCache(), waiters: newStoredWaiters(),
		release: newReleaser(0, nil),
		screen:  filter.New(filter.WithMaxContentChars(memory.MaxContentChars))}
	q.deleted = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_query_deleted_total",
		Help: "Memories hard-deleted at the user's request, by how they were named (id, namespace_prefix, subject)."}, []string{"by"})
	if reg != nil {
		reg.MustRegister(q.deleted)
	}
	return q
}

// Routes registers the module's routes.
func (q *Query) Routes(handle func(pattern string, h http.Handler)) {
	// The listener (web.Server) times every route, by pattern and status.
	route := func(pattern string, f http.HandlerFunc) { handle(pattern, f) }
	route("POST /v1/recall", q.recall)
	route("POST /v1/topics", q.topics)
	route("POST /v1/consolidate", q.consolidate)
	route("POST /v1/reindex", q.reindex)
	route("GET /v1/memories", q.list)
	route("POST /v1/memories", q.learn)
	route("DELETE /v1/memories", q.deleteMany)
	route("GET /v1/erasures/{id}", q.erasure)
	route("GET /v1/memories/{id}", q.get)
	route("GET /v1/memories/{id}/history", q.history)
	route("DELETE /v1/memories/{id}", q.delete)
	route("GET /v1/stats", q.stats)
	route("GET /v1/whoami", q.whoami)
	route("GET /v1/tenants", q.tenants)
	route("GET /v1/export", q.export)
	route("POST /v1/import", q.importMemories)
	if q.audit != nil {
		route("GET /v1/audit", q.auditLog)
	}
	if q.auditW != nil {
		route("POST /v1/memories/{id}/quarantine", q.reviewQuarantine)
	}
	if q.usage != nil {
		route("GET /v1/usage", q.usageTotals)
	}
	if q.reindexes != nil {
		route("GET /v1/reindex", q.reindexStatus)
	}
}

func (q *Query) recall(w http.ResponseWriter, r *http.Request) {
	var req recall.Request
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	resp, err := q.recaller.Recall(r.Context(), req)
	if err != nil {
		q.fail(w, r, "recall", err)
		return
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

func (q *Query) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	switch {
	case errors.Is(err, auth.ErrForbidden):
		web.WriteError(w, http.StatusForbidden, "forbidden", err)
	case errors.Is(err, memory.ErrInvalid):
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
	case errors.Is(err, store.ErrNotFound):
		web.WriteError(w, http.StatusNotFound, "not_found", err)
	case web.IsUnavailable(err):
		web.Unavailable(w, web.RetryAfter, err)
	default:
		q.log.ErrorContext(r.Context(), what, "error", err)
		web.WriteError(w, http.StatusInternalServerError, "internal", fmt.Errorf("%s: %w", what, err))
	}
}

// tenant resolves the tenant a request acts for from the one it names (the
// body's or the query's "tenant") and its API key, and validates it. On
// failure it has answered: 403 for a tenant the key may not act for, 400
// for a malformed one.
// decode reads a JSON body into v and resolves the tenant it names in
// place; on failure it has answered and returns false.
func (q *Query) decode(w http.ResponseWriter, r *http.Request, v any, tenant *string) bool {
	if err := web.DecodeJSON(w, r, v); err != nil {
		web.WriteError(w, http.StatusBadRequest, "bad_request", err)
		return false
	}
	t, ok := q.tenant(w, r, *tenant)
	if ok {
		*tenant = t
	}
	return ok
}

func (q *Query) tenant(w http.ResponseWriter, r *http.Request, requested string) (string, bool) {
	t, err := auth.Tenant(r.Context(), requested)
	if err == nil && !memory.ValidTenant(t) {
		err = &memory.FieldError{Field: "tenant", Reason: "must be 1-64 characters of [A-Za-z0-9_-]"}
	}
	if err != nil {
		q.fail(w, r, "resolve tenant", err)
		return "", false
	}
	return t, true
}

// ConsolidateRequest is the body of POST /v1/consolidate.
type ConsolidateRequest = api.ConsolidateRequest

func (q *Query) consolidate(w http.ResponseWriter, r *http.Request) {
	var req ConsolidateRequest
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	id := "manual:" + uuid.NewString()
	if err := consolidate.Request(r.Context(), q.pub, req.Tenant, id); err != nil {
		q.fail(w, r, "request epoch", err)
		return
	}
	resp := ConsolidateResponse{Tenant: req.Tenant, Epoch: id, TriageMinAgeSeconds: q.triageMinAge.Seconds()}
	if q.triageMinAge > 0 {
		// Buffer memories younger than the minimum age are left to a later
		// epoch's triage: say how many, so a fresh store's epoch that does
		// nothing visible explains itself.
		n, err := q.store.Count(r.Context(), req.Tenant, store.Filter{Layers: []memory.Layer{memory.LayerBuffer},
			CreatedAfter: q.now().Add(-q.triageMinAge)})
		if err != nil {
			q.fail(w, r, "count memories too young for triage", err)
			return
		}
		resp.TooYoung = n
	}
	web.WriteJSON(w, http.StatusAccepted, resp)
}

// ConsolidateResponse is the answer of POST /v1/consolidate: the epoch
// requested, and how many buffer memories it leaves untriaged because they
// are younger than the triage minimum age (--triage-min-age).
type ConsolidateResponse = api.ConsolidateResponse

// SetTriageMinAge is the consolidator's --triage-min-age, for the
// consolidate answer's count of memories too young for triage.
func (q *Query) SetTriageMinAge(d time.Duration) { q.triageMinAge = d }

func (q *Query) get(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	m, err := q.store.Get(r.Context(), tenant, r.PathValue("id"))
	if err != nil {
		q.fail(w, r, "get memory", err)
		return
	}
	m.Vector = nil
	web.WriteJSON(w, http.StatusOK, m)
}

func (q *Query) delete(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	id := r.PathValue("id")
	if _, err := q.store.Get(r.Context(), tenant, id); err != nil {
		q.fail(w, r, "delete memory", err)
		return
	}
	if err := q.store.Delete(r.Context(), tenant, id); err != nil {
		q.fail(w, r, "delete memory", err)
		return
	}
	q.deleted.WithLabelValues("id").Inc()
	q.log.InfoContext(r.Context(), "deleted memory", "tenant", tenant, "id", id)
	data, _ := json.Marshal(memory.StoredEvent{Tenant: tenant, ID: id, Op: memory.StoredDeleted})
	if err := q.pub.Publish(r.Context(), bus.Msg{Subject: bus.StoredSubject(tenant), ID: "deleted:" + tenant + ":" + id, Data: data}); err != nil {
		q.log.WarnContext(r.Context(), "announce deletion", "tenant", tenant, "error", err)
	}
	w.WriteHeader(http.StatusNoContent)
}

// ListResponse is a page of memories.
type ListResponse = api.ListResponse

const maxListLimit = 1000

func (q *Query) list(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	limit := 100
	var err error
	if s := r.URL.Query().Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > maxListLimit {
			web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "limit", Reason: fmt.Sprintf("must be between 1 and %d", maxListLimit)})
			return
		}
	}
	after := r.URL.Query().Get("after")
	f := store.Filter{IncludeArchived: r.URL.Query().Get("archived") == "true",
		IncludeSuperseded:  r.URL.Query().Get("superseded") == "true",
		IncludeQuarantined: r.URL.Query().Get("quarantined") == "true"}
	if ns := r.URL.Query().Get("namespace"); ns != "" {
		f.Namespaces = []string{ns}
	}
	if d := r.URL.Query().Get("domain"); d != "" {
		f.Domains = []string{d}
	}
	if err := listFilters(r.URL.Query(), &f); err != nil {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
		return
	}
	// quarantined=only lists the quarantined memories alone (the review
	// queue): the scan is the same, the page holds only them.
	onlyQuarantined := r.URL.Query().Get("quarantined") == "only"
	f.IncludeQuarantined = f.IncludeQuarantined || onlyQuarantined
	if err := timeView(r, q.now(), &f); err != nil {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
		return
	}
	errPage := errors.New("page full")
	resp := ListResponse{Memories: []memory.Memory{}}
	scroll := func(fn func(memory.Memory) error) error { return q.store.Scroll(r.Context(), tenant, f, fn) }
	if ps, ok := q.store.(store.PageScroller); ok {
		// Deep pages start at the cursor, without reading what is before it.
		scroll = func(fn func(memory.Memory) error) error { return ps.ScrollMetaAfter(r.Context(), tenant, f, after, fn) }
	}
	err = scroll(func(m memory.Memory) error {
		if after != "" && m.ID <= after || onlyQuarantined && !m.Quarantined() {
			return nil
		}
		if len(resp.Memories) == limit {
			resp.Next = resp.Memories[limit-1].ID
			return errPage
		}
		m.Vector = nil
		resp.Memories = append(resp.Memories, m)
		return nil
	})
	if err != nil && !errors.Is(err, errPage) {
		q.fail(w, r, "list memories", err)
		return
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

// LearnRequest is the body of POST /v1/memories: an explicit memory.
type LearnRequest = api.LearnRequest

// LearnResponse is the answer of POST /v1/memories: 202 with the event id
// and the id the memory will have; with wait, 201 and the stored memory
// (Stored), or 202 with Stored false when the wait timed out. Merged says
// a near-duplicate absorbed the memory: MemoryID is then the absorbing
// memory's id.
type LearnResponse = api.LearnResponse

func (q *Query) learn(w http.ResponseWriter, r *http.Request) {
	var req LearnRequest
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	if req.ID == "" {
		req.ID = uuid.NewString()
	}
	wait, timeout, ok := learnWaitOptions(w, r, &req)
	if !ok {
		return
	}
	in := req.MemoryInput
	e := memory.Event{ID: req.ID, Type: memory.EventMemory, Tenant: req.Tenant, Namespace: req.Namespace, Subject: req.Subject,
		Channel: req.Channel, SessionID: req.SessionID, Memory: &in}
	if err := e.Normalize(q.now()); err != nil {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
		return
	}
	msg, err := ingest.EventMsg(&e)
	if err != nil {
		q.fail(w, r, "learn", err)
		return
	}
	var stored <-chan memory.StoredEvent
	if wait {
		var cancel func()
		stored, cancel = q.waiters.add(bus.EventMsgID(e.Tenant, e.ID))
		defer cancel()
	}
	if err := q.pub.Publish(r.Context(), msg); err != nil {
		q.fail(w, r, "learn", err)
		return
	}
	resp := LearnResponse{ID: req.ID, MemoryID: memory.MemoryID(e.Tenant, e.Namespace, e.Subject, in.Content)}
	if !wait {
		web.WriteJSON(w, http.StatusAccepted, resp)
		return
	}
	q.awaitStored(w, r, &e, resp, stored, timeout)
}

// Stats counts a tenant's memories, archived and superseded ones included
// (and counted apart too).
type Stats = api.Stats

// TranscriptStats counts a tenant's transcript memories.
type TranscriptStats = api.TranscriptStats

// addTranscript counts m, a transcript memory, into t.
func addTranscript(t *TranscriptStats, m *memory.Memory, sessions map[string]bool) {
	t.Memories++
	if m.Archived {
		t.Archived++
	}
	t.Chars += len(m.Content)
	if !sessions[m.Session] {
		sessions[m.Session] = true
		t.Sessions++
	}
	at := m.ValidFrom
	if t.Oldest == nil || at.Before(*t.Oldest) {
		t.Oldest = &at
	}
	if t.Newest == nil || at.After(*t.Newest) {
		t.Newest = &at
	}
}

func (q *Query) stats(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	count, err := q.tokens.counter()
	if err != nil {
		q.fail(w, r, "stats", fmt.Errorf("load tokenizer: %w", err))
		return
	}
	s := Stats{Tenant: tenant, Domains: map[string]int{}, Types: map[string]int{}, Kinds: map[string]int{}, Layers: map[string]int{},
		DomainTokens: map[string]int{}}
	sessions := map[string]bool{}
	err = q.store.Scroll(r.Context(), tenant, everything, func(m memory.Memory) error {
		s.Memories++
		if m.Transcript() {
			addTranscript(&s.Transcripts, &m, sessions)
		}
		if m.Archived {
			s.Archived++
		}
		if m.Superseded() {
			s.Superseded++
		}
		if m.Quarantined() {
			s.Quarantined++
		}
		s.Domains[m.Domain]++
		s.Types[string(m.Type)]++
		s.Kinds[string(m.Kind)]++
		s.Layers[string(m.Layer)]++
		s.Chars += len(m.Content)
		n := count(m.Content)
		s.Tokens += n
		s.DomainTokens[m.Domain] += n
		return nil
	})
	if err != nil {
		q.fail(w, r, "stats", err)
		return
	}
	web.WriteJSON(w, http.StatusOK, s)
}
