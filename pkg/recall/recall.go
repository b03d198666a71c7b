// Package recall ranks a tenant's memories for a query and assembles the
// domain-grouped "Recalled Context" prompt block (000).
package recall

import (
	"context"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/scope"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/temporal"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Limits on a request.
const (
	MaxQueryChars = 4096
	MaxK          = 100
)

// MaxFilePathChars bounds filters.file_path.
const MaxFilePathChars = 1024

// Request is the body of POST /v1/recall.
type Request struct {
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Query     string `json:"query"`
	K         int    `json:"k,omitempty"`
	// PerDomain overrides the per-domain budget (000: 3 per domain): each
	// domain's best PerDomain results are placed before any domain's
	// further ones, then the rest of the k places go by score. It spreads
	// the answer over the domains; it never makes it shorter than k.
	PerDomain int     `json:"per_domain,omitempty"`
	Channel   string  `json:"channel,omitempty"`
	Filters   Filters `json:"filters,omitzero"`
	Dry       bool    `json:"dry,omitempty"`
	// Expand asks the LLM for alternative phrasings searched as well (003
	// §4.4). Unset, recall expands on its own when the first pass is weak;
	// false never expands. Without an LLM it is reported as not applied.
	Expand *bool `json:"expand,omitempty"`
	// Rerank has the LLM reorder the best candidates (003 §4.5). Unset
	// follows the server's --recall-rerank.
	Rerank *bool `json:"rerank,omitempty"`
	// Key recalls the memories stored under this key (normalised, in the
	// request's namespaces) first; when none has it, recall falls back to
	// searching, with the key's words as the query if Query is empty.
	Key string `json:"key,omitempty"`
	// AsOf is the time the question is asked at (RFC 3339; default now):
	// recency is measured from it and the query's time expressions ("last
	// week") are read against it. Given, it also asks what was true then
	// (valid time): the versions valid at AsOf, even if superseded since.
	AsOf Instant `json:"as_of,omitzero"`
	// KnownAt asks what Recollect knew at that time (record time): the
	// memories it held then, superseded since or not, none learnt later.
	KnownAt Instant `json:"known_at,omitzero"`

	// view is the request's reading of the two clocks, set by readTime.
	view memory.TimeView
	// scratch holds the vectors of the request's search hits (see
	// scratchPool), set by Recall for the length of the call.
	scratch *store.Scratch
	// session is the session the query names by its place in time ("in
	// our fourth session"; sessions.go), set by Recall; "" for none.
	session string

	// time is the query's reading of time, set by Recall.
	time temporal.Query
}

// Filters narrow recall.
type Filters struct {
	Domains  []string       `json:"domains,omitempty"`
	Types    []memory.Type  `json:"types,omitempty"`
	Kinds    []memory.Kind  `json:"kinds,omitempty"`
	Layers   []memory.Layer `json:"layers,omitempty"`
	Tags     []string       `json:"tags,omitempty"`
	Subjects []string       `json:"subjects,omitempty"`
	Sessions []string       `json:"sessions,omitempty"`
	After    time.Time      `json:"after,omitzero"`
	Before   time.Time      `json:"before,omitzero"`
	// IncludeArchived and IncludeSuperseded list archived and superseded
	// memories too (their history, a search of the past); neither ever goes
	// into the context block. "archived" is accepted for include_archived.
	IncludeArchived   bool `json:"include_archived,omitempty"`
	IncludeSuperseded bool `json:"include_superseded,omitempty"`
	// IncludeQuarantined lists quarantined memories too (explicit memories
	// that looked like prompt injection), for operators; they never go
	// into the context block.
	IncludeQuarantined bool `json:"include_quarantined,omitempty"`
	// FilePath keeps memories whose scope globs match this file, and
	// memories without scope globs (004's scoped retrieval).
	FilePath string `json:"file_path,omitempty"`
	// Time "query" keeps only memories whose event time lies in the time
	// window the query names ("in June 2023"); empty uses the window as a
	// soft boost in ranking.
	Time string `json:"time,omitempty"`
}

// Result is one recalled memory with every part of its score.
type Result = api.RecallResult

// Response is the body of a recall answer.
type Response struct {
	Query    string   `json:"query"`
	Weights  Weights  `json:"weights"`
	Memories []Result `json:"memories"`
	Context  string   `json:"context"`
	// Expand and Rerank report the LLM steps when one was asked for or
	// tried.
	Expand *Step `json:"expand,omitempty"`
	Rerank *Step `json:"rerank,omitempty"`
	// Time is how the request read time: as_of, the query's windows and
	// stance, the recency scale.
	Time *TimeInfo `json:"time,omitempty"`
}

// Recaller answers recall requests.
type Recaller struct {
	cfg     Config
	store   store.Store
	model   embed.Embedder
	domains *domains.Registry
	now     func() time.Time
	log     *slog.Logger
	chat    Chatter // nil: no LLM steps
	reg     prometheus.Registerer
	metrics *metrics

	touching chan struct{} // slots for touch batches in flight
	touches  sync.WaitGroup
}

// New builds a Recaller.
func New(cfg Config, st store.Store, model embed.Embedder, reg *domains.Registry, now func() time.Time, opts ...Option) (*Recaller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Recaller{cfg: cfg.withDefaults(), store: st, model: model, domains: reg, now: now,
		log: slog.New(slog.DiscardHandler), touching: make(chan struct{}, maxTouching)}
	for _, opt := range opts {
		opt(r)
	}
	r.metrics = newMetrics(r.reg)
	return r, nil
}

// Normalize fills defaults and validates a request.
func (req *Request) Normalize() error {
	if req.Tenant == "" {
		req.Tenant = memory.DefaultTenant
	}
	if req.Namespace == "" {
		req.Namespace = memory.DefaultNamespace
	}
	if !memory.ValidTenant(req.Tenant) {
		return &memory.FieldError{Field: "tenant", Reason: "must be 1-64 characters of [A-Za-z0-9_-]"}
	}
	if !memory.ValidNamespace(req.Namespace) {
		return &memory.FieldError{Field: "namespace", Reason: "must be 1-64 characters of [A-Za-z0-9_./:-]"}
	}
	if n := len([]rune(req.Key)); n > memory.MaxKeyChars {
		return &memory.FieldError{Field: "key", Reason: fmt.Sprintf("is longer than %d characters (%d)", memory.MaxKeyChars, n)}
	}
	req.Key = memory.NormalizeKey(req.Key)
	req.Query = memory.CleanText(req.Query)
	if req.Query == "" && req.Key != "" {
		req.Query = keyWords(req.Key)
	}
	if req.Query == "" {
		return &memory.FieldError{Field: "query", Reason: "is required (or a key)"}
	}
	if n := len([]rune(req.Query)); n > MaxQueryChars {
		return &memory.FieldError{Field: "query", Reason: fmt.Sprintf("is longer than %d characters (%d)", MaxQueryChars, n)}
	}
	if req.K < 0 || req.K > MaxK {
		return &memory.FieldError{Field: "k", Reason: fmt.Sprintf("must be between 1 and %d", MaxK)}
	}
	if req.PerDomain < 0 || req.PerDomain > MaxK {
		return &memory.FieldError{Field: "per_domain", Reason: fmt.Sprintf("must be between 1 and %d", MaxK)}
	}
	if n := len([]rune(req.Filters.FilePath)); n > MaxFilePathChars {
		return &memory.FieldError{Field: "filters.file_path", Reason: fmt.Sprintf("is longer than %d characters (%d)", MaxFilePathChars, n)}
	}
	req.Filters.FilePath = scope.Clean(req.Filters.FilePath)
	return nil
}

// Recall ranks the tenant's memories for the request: both channels for the
// query, then, with an LLM, expansion and rerank when asked for. The LLM
// steps never fail a recall: on any failure the answer is the one before
// the step, and the step is reported as not applied.
func (r *Recaller) Recall(ctx context.Context, req Request) (Response, error) {
	if err := req.Normalize(); err != nil {
		return Response{}, err
	}
	if err := r.readTime(&req); err != nil {
		return Response{}, err
	}
	if req.Key != "" {
		byKey, err := r.byKey(ctx, req)
		if err != nil {
			return Response{}, err
		}
		if len(byKey) > 0 {
			return r.respond(ctx, req, Response{Query: req.Query, Weights: AdaptiveWeights(req.Query)}, byKey), nil
		}
	}
	req.scratch = scratchPool.Get().(*store.Scratch)
	defer releaseScratch(req.scratch)
	var err error
	if req.session, err = r.namedSession(ctx, req); err != nil {
		return Response{}, err
	}
	// The lexical channel needs no vector: it runs while the query is
	// embedded (see retrieve).
	embedQuery := func(ctx context.Context) ([]float32, error) {
		vecs, err := r.model.Embed(usage.WithTenant(ctx, req.Tenant), []string{req.Query})
		if err != nil {
			return nil, &embedError{fmt.Errorf("embed query: %w", err)}
		}
		if len(vecs) != 1 {
			return nil, &embedError{errors.New("embed query: model returned no vector")}
		}
		return vecs[0], nil
	}
	cands, err := r.search(ctx, req, req.Query, embedQuery)
	if ee, ok := errors.AsType[*embedError](err); ok {
		return Response{}, ee.err
	}
	if err != nil {
		return Response{}, fmt.Errorf("search memories: %w", err)
	}
	first := relevances(cands, req.Query, "")
	results := r.rank(first, req)
	if ents := r.splitEntities(req.Query); len(ents) > 0 && !r.cfg.NoEntityCover {
		results = coverEntities(results, ents, r.resultsK(req))
	}
	results = liftEvents(results, first) // marked by the search of a question comparing events
	resp := Response{Query: req.Query, Weights: weightsFor(req.Query, cands)}
	results, resp.Expand = r.expand(ctx, req, first, results)
	results, resp.Rerank = r.rerank(ctx, req, results)
	_, filtered := timeFilter(req, store.Filter{})
	resp.Time = timeInfo(req, newTimeRank(req, first), filtered, slices.ContainsFunc(results, func(res Result) bool { return res.OutrankedBy != "" }))
	return r.respond(ctx, req, resp, results), nil
}

// resultsK is how many results the request is answered with.
func (r *Recaller) resultsK(req Request) int {
	if req.K > 0 {
		return req.K
	}
	return r.cfg.MaxResults
}

// respond caps the results, records the access and builds the block.
func (r *Recaller) respond(ctx context.Context, req Request, resp Response, results []Result) Response {
	total := r.cfg.MaxResults
	if req.K > 0 {
		total = req.K
	}
	perDomain := r.cfg.PerDomain
	if req.PerDomain > 0 {
		perDomain = req.PerDomain
	}
	results = capPerDomain(results, perDomain, total)
	if !req.Dry {
		r.touch(ctx, req.Tenant, results)
	}
	for i := range results {
		// Vectors are not part of the answer, and a hit's may live in the
		// request's scratch, reused once Recall returns.
		results[i].Memory.Vector, results[i].Memory.ChunkVectors = nil, nil
	}
	resp.Memories, resp.Context = results, r.BlockAt(results, req.view)
	return resp
}

func (r *Recaller) filter(req Request) store.Filter {
	ns := []string{req.Namespace}
	if req.Namespace != memory.DefaultNamespace {
		ns = append(ns, memory.DefaultNamespace)
	}
	f := req.Filters
	return store.Filter{
		Namespaces: ns, Domains: f.Domains, Types: f.Types, Kinds: f.Kinds, Layers: f.Layers, Tags: f.Tags,
		Subjects: f.Subjects, Sessions: f.Sessions, CreatedAfter: f.After, CreatedBefore: f.Before,
		IncludeArchived: f.IncludeArchived, IncludeSuperseded: f.IncludeSuperseded,
		IncludeQuarantined: f.IncludeQuarantined, ValidAt: req.view.AsOf, KnownAt: req.view.KnownAt,
	}
}

// TranscriptTag marks transcript memories (one per conversation message):
// searchable, dampened, never injected into prompts as facts.
const TranscriptTag = memory.TranscriptTag

// transcriptDampening is Nebo's factor for session-transcript chunks.
const transcriptDampening = 0.6

// factDamp is the factor of a memory that is not a message, of relevance
// rel. Nebo dampens transcript messages (by transcriptDampening) so that
// distilled facts rank above the talk they came from; a fact holds that
// lead, with its importance and layer bonus, only while it answers about
// as well: a loose one is dampened too (1 at rel 1, 0.92 at 0.9, 0.70 at
// 0.5), so that it is not ranked above the message that says what was
// asked. Messages keep one factor, so their order among themselves (time,
// neighbours, speakers) is as before.
func factDamp(rel float64) float64 {
	rel = max(0, min(1, rel))
	return transcriptDampening + (1-transcriptDampening)*rel*rel
}

// rank scores hits with 003's formula: relevance 0.6, importance 0.2,
// recency 0.2 (from as_of, see timerank.go), times the layer bonus; then Clanker's
// confidence and channel hints, and transcript dampening. Relevance is
// first smoothed over conversation neighbours.
func (r *Recaller) rank(hits []hit, req Request) []Result {
	tr := newTimeRank(req, hits)
	rels := make([]float64, len(hits))
	cands := make([]candidate, len(hits))
	for i, h := range hits {
		rels[i], cands[i] = h.rel, h.candidate
	}
	rels = smoothNeighbours(cands, rels)
	speakers := newSpeakerFocus(req.Query, hits)
	names := newNameFocus(req.Query, hits)
	errs := newErrorFocus(req.Query)
	out := make([]Result, 0, len(hits))
	for i, h := range hits {
		rel := rels[i]
		if rel < r.cfg.MinRelevance {
			continue
		}
		m := h.mem
		recency := tr.recency(m)
		bonus := m.Layer.Bonus()
		conf := m.Confidence
		if conf == 0 {
			conf = memory.ConfidenceUnknown
		}
		confFactor := 0.9 + 0.1*conf
		channel := 1.0
		if req.Channel != "" && m.Channel == req.Channel {
			channel = 1.05
		}
		damp := transcriptDampening
		if !slices.Contains(m.Tags, TranscriptTag) {
			damp = factDamp(rel)
		}
		speaker := speakers.factor(m)
		info := informationPrior(m)
		name := names.factor(m)
		reported := errs.factor(m)
		inSession := 1.0
		if req.session != "" && m.Session == req.session {
			inSession = sessionBoost
		}
		score := math.Min(1, (0.6*rel+0.2*m.Importance+0.2*recency)*bonus) * confFactor * channel * damp * info * speaker * name * reported * inSession
		res := Result{Memory: *m, Score: score, Relevance: rel, Semantic: h.semantic, Lexical: h.lexical,
			Importance: m.Importance, Recency: recency, LayerBonus: bonus, Confidence: confFactor, Channel: channel, Dampening: damp, Information: info,
			Expanded: h.expansion != "", ExpandedQuery: h.expansion}
		if speaker != 1 {
			res.Speaker = speaker
		}
		if name != 1 {
			res.Name = name
		}
		if reported != 1 {
			res.Error = reported
		}
		if inSession != 1 {
			res.Session = inSession
		}
		out = append(out, res)
	}
	tr.applyAll(out, timeDepth*max(req.K, r.cfg.MaxResults))
	sortResults(out)
	answersFirst(out)
	tr.newerWins(out)
	moveEchoes(out, echoTop(req.K))
	return out
}

// sortResults orders by score, then id, so equal scores rank stably. A
// Result is most of a kilobyte: the sort moves their indices, and each
// result then moves once, following the permutation's cycles.
func sortResults(out []Result) {
	order := make([]int32, len(out))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		x, y := &out[a], &out[b]
		if x.Score != y.Score {
			if x.Score > y.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Memory.ID, y.Memory.ID)
	})
	permute(out, order)
}

// permute puts out[order[i]] at i for every i, in place; order is
// consumed (each entry set to its own index once placed).
func permute(out []Result, order []int32) {
	for i := range order {
		if int(order[i]) == i {
			continue
		}
		held := out[i]
		j := i
		for {
			k := int(order[j])
			order[j] = int32(j)
			if k == i {
				out[j] = held
				break
			}
			out[j] = out[k]
			j = k
		}
	}
}

// capPerDomain picks total results in score order, with each domain's first
// perDomain given their place before any domain's further ones (000's
// per-domain top-k: 3 per domain, 9 at most). The per-domain budget spreads
// the answer over the domains; it never makes the answer shorter than total
// when more results exist, so a recall asked for k answers k (issue 20).
func capPerDomain(results []Result, perDomain, total int) []Result {
	count := map[string]int{}
	picked := make([]bool, len(results))
	n := 0
	for i, res := range results {
		if n >= total {
			break
		}
		if count[res.Memory.Domain] >= perDomain {
			continue
		}
		count[res.Memory.Domain]++
		picked[i] = true
		n++
	}
	for i := range results {
		if n >= total {
			break
		}
		if !picked[i] {
			picked[i] = true
			n++
		}
	}
	out := make([]Result, 0, n)
	for i, res := range results {
		if picked[i] {
			out = append(out, res)
		}
	}
	return out
}
