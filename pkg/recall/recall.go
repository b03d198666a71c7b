// Package recall ranks a tenant's memories for a query and assembles the
// domain-grouped "Recalled Context" prompt block (000).
package recall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Config of recall ranking.
type Config struct {
	PerDomain    int
	MaxResults   int
	MinRelevance float64
	Candidates   int
}

// RegisterFlags adds the recall flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.PerDomain, prefix+"recall-per-domain", 3, "memories recalled per domain")
	fs.IntVar(&c.MaxResults, prefix+"recall-max", 9, "memories recalled in all")
	fs.Float64Var(&c.MinRelevance, prefix+"recall-min-relevance", 0.15, "fused relevance (semantic and lexical) below which a memory is not recalled")
	fs.IntVar(&c.Candidates, prefix+"recall-candidates", 200, "memories each channel (dense, lexical) contributes before ranking")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.PerDomain < 1:
		return fmt.Errorf("recall-per-domain must be at least 1 (got %d)", c.PerDomain)
	case c.MaxResults < 1 || c.MaxResults > 100:
		return fmt.Errorf("recall-max must be between 1 and 100 (got %d)", c.MaxResults)
	case c.MinRelevance < -1 || c.MinRelevance > 1:
		return fmt.Errorf("recall-min-relevance must be between -1 and 1 (got %g)", c.MinRelevance)
	case c.Candidates < c.MaxResults:
		return fmt.Errorf("recall-candidates must be at least recall-max (%d)", c.MaxResults)
	}
	return nil
}

// Limits on a request.
const (
	MaxQueryChars = 4096
	MaxK          = 100
)

// Request is the body of POST /v1/recall.
type Request struct {
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Query     string `json:"query"`
	K         int    `json:"k,omitempty"`
	// PerDomain overrides the per-domain cap (000: 3 per domain); an
	// explicit k with one domain in play needs it raised.
	PerDomain int     `json:"per_domain,omitempty"`
	Channel   string  `json:"channel,omitempty"`
	Filters   Filters `json:"filters,omitzero"`
	Dry       bool    `json:"dry,omitempty"`
}

// Filters narrow recall.
type Filters struct {
	Domains         []string       `json:"domains,omitempty"`
	Types           []memory.Type  `json:"types,omitempty"`
	Kinds           []memory.Kind  `json:"kinds,omitempty"`
	Layers          []memory.Layer `json:"layers,omitempty"`
	Tags            []string       `json:"tags,omitempty"`
	Subjects        []string       `json:"subjects,omitempty"`
	Sessions        []string       `json:"sessions,omitempty"`
	After           time.Time      `json:"after,omitzero"`
	Before          time.Time      `json:"before,omitzero"`
	IncludeArchived bool           `json:"include_archived,omitempty"`
}

// Result is one recalled memory with every part of its score.
type Result struct {
	Memory     memory.Memory `json:"memory"`
	Score      float64       `json:"score"`
	Relevance  float64       `json:"relevance"` // fused from semantic and lexical
	Semantic   float64       `json:"semantic"`  // cosine similarity
	Lexical    float64       `json:"lexical"`   // BM25 relative to the best hit
	Importance float64       `json:"importance"`
	Recency    float64       `json:"recency"`
	LayerBonus float64       `json:"layer_bonus"`
	Confidence float64       `json:"confidence_factor"`
	Channel    float64       `json:"channel_factor"`
	Dampening  float64       `json:"dampening"`
}

// Response is the body of a recall answer.
type Response struct {
	Query    string   `json:"query"`
	Weights  Weights  `json:"weights"`
	Memories []Result `json:"memories"`
	Context  string   `json:"context"`
}

// Recaller answers recall requests.
type Recaller struct {
	cfg     Config
	store   store.Store
	model   embed.Embedder
	domains *domains.Registry
	now     func() time.Time
	log     *slog.Logger

	touching chan struct{} // slots for touch batches in flight
	touches  sync.WaitGroup
}

// New builds a Recaller.
func New(cfg Config, st store.Store, model embed.Embedder, reg *domains.Registry, now func() time.Time) (*Recaller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Recaller{cfg: cfg, store: st, model: model, domains: reg, now: now,
		log: slog.New(slog.DiscardHandler), touching: make(chan struct{}, maxTouching)}, nil
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
	req.Query = memory.CleanText(req.Query)
	if req.Query == "" {
		return &memory.FieldError{Field: "query", Reason: "is required"}
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
	return nil
}

// Recall ranks the tenant's memories for the request.
func (r *Recaller) Recall(ctx context.Context, req Request) (Response, error) {
	if err := req.Normalize(); err != nil {
		return Response{}, err
	}
	vecs, err := r.model.Embed(usage.WithTenant(ctx, req.Tenant), []string{req.Query})
	if err != nil {
		return Response{}, fmt.Errorf("embed query: %w", err)
	}
	if len(vecs) != 1 {
		return Response{}, errors.New("embed query: model returned no vector")
	}
	cands, err := r.retrieve(ctx, req.Tenant, vecs[0], req.Query, r.filter(req))
	if err != nil {
		return Response{}, fmt.Errorf("search memories: %w", err)
	}
	results := r.rank(cands, req)
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
		results[i].Memory.Vector = nil
	}
	return Response{Query: req.Query, Weights: AdaptiveWeights(req.Query), Memories: results, Context: r.Block(results)}, nil
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
		IncludeArchived: f.IncludeArchived,
	}
}

// TranscriptTag marks session-transcript chunks: searchable, dampened,
// never injected into prompts.
const TranscriptTag = "transcript"

// transcriptDampening is Nebo's factor for session-transcript chunks.
const transcriptDampening = 0.6

// rank scores candidates with 003's formula: relevance 0.6, importance 0.2,
// recency 0.2 (one-week scale), times the layer bonus; then Clanker's
// confidence and channel hints, and transcript dampening.
func (r *Recaller) rank(cands []candidate, req Request) []Result {
	now := r.now()
	w := AdaptiveWeights(req.Query)
	qterms := map[string]bool{}
	for _, t := range lexical.Terms(req.Query) {
		qterms[t] = true
	}
	rels := make([]float64, len(cands))
	for i, c := range cands {
		rels[i] = relevance(c, w, qterms)
	}
	rels = smoothNeighbours(cands, rels)
	out := make([]Result, 0, len(cands))
	for i, c := range cands {
		rel := rels[i]
		if rel < r.cfg.MinRelevance {
			continue
		}
		m := c.mem
		last := m.ModifiedAt
		if m.LastAccessed.After(last) {
			last = m.LastAccessed
		}
		ageHours := math.Max(0, now.Sub(last).Hours())
		recency := math.Exp(-ageHours / 168)
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
		damp := 1.0
		if slices.Contains(m.Tags, TranscriptTag) {
			damp = transcriptDampening
		}
		score := math.Min(1, (0.6*rel+0.2*m.Importance+0.2*recency)*bonus) * confFactor * channel * damp
		out = append(out, Result{Memory: m, Score: score, Relevance: rel, Semantic: c.semantic, Lexical: c.lexical,
			Importance: m.Importance, Recency: recency, LayerBonus: bonus, Confidence: confFactor, Channel: channel, Dampening: damp})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Memory.ID < out[j].Memory.ID
	})
	return out
}

// capPerDomain keeps at most perDomain results of each domain and total in all,
// in score order (000: 3 per domain, 9 at most).
func capPerDomain(results []Result, perDomain, total int) []Result {
	count := map[string]int{}
	out := results[:0:0]
	for _, res := range results {
		if len(out) >= total {
			break
		}
		if count[res.Memory.Domain] >= perDomain {
			continue
		}
		count[res.Memory.Domain]++
		out = append(out, res)
	}
	return out
}
