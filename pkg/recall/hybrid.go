package recall

import (
	"context"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"math"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/temporal"
)

// candidate is a memory found by either retrieval channel, with both of its
// signals: every candidate gets a cosine (computed from its stored vector
// when the dense channel missed it) and a normalised BM25 score.
type candidate struct {
	mem      *memory.Memory // the store hit's, shared by every copy of the candidate
	semantic float64        // cosine similarity
	lexical  float64        // BM25 / best BM25 of the query, in [0, 1]
	dense    bool           // found by the dense channel
	text     bool           // found by the lexical channel
	timed    bool           // found by the time channel (timechannel.go)
	// event: the best lexical hit of one of the events a question compares
	// in time (events.go), lifted into the first results.
	event bool
	// apart: the two channels' best hits for the query that found this
	// candidate barely overlap (channelsApart).
	apart bool
	// terms: whether the store found one of the query's terms in a dense
	// hit's text (store.Query.Terms); unknown: read the text (sharesTerm).
	terms store.TermMatch
}

// Weights split relevance between the two channels (Nebo's adaptive
// weights by query shape).
type Weights = api.Weights

// AdaptiveWeights picks channel weights from the query's shape: short
// queries and proper nouns lean on exact terms, long ones on meaning.
func AdaptiveWeights(query string) Weights {
	words := strings.Fields(query)
	proper := false
	for i, w := range words {
		r := []rune(strings.Trim(w, `"'.,;:!?()`))
		if i > 0 && len(r) > 1 && unicode.IsUpper(r[0]) {
			proper = true
		}
	}
	switch n := len(words); {
	case n <= 3 && proper:
		return Weights{Vector: 0.35, Text: 0.65}
	case n <= 3:
		return Weights{Vector: 0.45, Text: 0.55}
	case n <= 5:
		return Weights{Vector: 0.70, Text: 0.30}
	default:
		return Weights{Vector: 0.80, Text: 0.20}
	}
}

// retrieve runs the dense and lexical channels in parallel and merges the
// hits that keep accepts (nil: all), k from each channel.
func (r *Recaller) retrieve(ctx context.Context, sc *store.Scratch, tenant string, query queryVector, text string, f store.Filter, k int, keep func(memory.Memory) bool) ([]candidate, error) {
	vec, dense, lex, err := r.channels(ctx, sc, tenant, query, text, f, k)
	if err != nil {
		return nil, err
	}
	if keep != nil {
		dense, lex = keepHits(dense, keep), keepHits(lex, keep)
	}
	subjects := capturedSubjects(text, dense, lex)
	var rest []store.Hit // the lexical hits of the question without its subject
	if len(subjects) > 0 {
		if rest, err = r.searchWithout(ctx, sc, tenant, text, subjects, f, k); err != nil {
			return nil, err
		}
		if keep != nil {
			rest = keepHits(rest, keep)
		}
	}
	// byID points into out, whose capacity holds every hit: no append moves it.
	byID := make(map[string]*candidate, len(dense)+len(lex)+len(rest))
	out := make([]candidate, 0, len(dense)+len(lex)+len(rest))
	for i := range dense {
		h := &dense[i]
		out = append(out, candidate{mem: &h.Memory, semantic: fairCosine(h.Score, &h.Memory), dense: true, terms: h.Terms})
	}
	for i := range out {
		byID[out[i].mem.ID] = &out[i]
	}
	// addLexical adds share of each hit's BM25 relative to the best hit.
	addLexical := func(hits []store.Hit, share float64) {
		best := bestScore(hits)
		for i := range hits {
			h := &hits[i]
			norm := relativeScore(share*h.Score, best)
			if c, ok := byID[h.Memory.ID]; ok {
				c.lexical += norm
				c.text = true
				continue
			}
			out = append(out, candidate{mem: &h.Memory, semantic: fairCosine(bestCosine(vec, &h.Memory), &h.Memory), lexical: norm, text: true})
			byID[h.Memory.ID] = &out[len(out)-1]
		}
	}
	if len(rest) == 0 {
		addLexical(lex, 1)
	} else {
		addLexical(lex, 1-withoutSubjectShare)
		addLexical(rest, withoutSubjectShare)
	}
	if channelsApart(dense, lex) || len(subjects) > 0 {
		for i := range out {
			out[i].apart = true
		}
	}
	inContext(vec, out)
	return out, nil
}

// When the dense channel's best hits and the lexical channel's share
// almost nothing, the model and the words read the question differently:
// typically a name the question repeats (a project the whole tenant talks
// about) draws the model to every memory naming it, while the rare words
// that say what is asked ("import cycle", "hydration mismatch") draw BM25
// to the answer. A long question's weights (0.8 / 0.2) then drown the
// lexical channel; they are leaned to apartWeights instead. Not for a
// question naming a time: its dates are read by the time factor and the
// time channel, and the words of a date match loosely. On the dev sets
// (built-in model) this took LoCoMo recall_any@10 0.8645 → 0.8684, DevChat
// classes code 0.857 → 0.893, and left DevChat as it was; overlap ≤ 2 or a
// vector weight of 0.7 did worse (docs/BENCHMARKS.md).
const (
	apartTop     = 10 // best hits of each channel compared
	apartOverlap = 1  // at most this many shared: the channels are apart
)

// apartWeights are the weights of a question whose channels are apart.
var apartWeights = Weights{Vector: 0.6, Text: 0.4}

// channelsApart reports whether the first apartTop hits of the two
// channels (each in score order) share at most apartOverlap memories.
// Channels with fewer hits are not compared: a small tenant proves nothing.
func channelsApart(dense, lex []store.Hit) bool {
	if len(dense) < apartTop || len(lex) < apartTop {
		return false
	}
	top := make(map[string]bool, apartTop)
	for _, h := range dense[:apartTop] {
		top[h.Memory.ID] = true
	}
	shared := 0
	for _, h := range lex[:apartTop] {
		if top[h.Memory.ID] {
			shared++
		}
	}
	return shared <= apartOverlap
}

// capturedSubjects are the query's terms that hold the dense channel, none
// when no term does. A term holds it when it is in at least capturedMin of
// the dense channel's first apartTop hits and one of the lexical channel's
// best hits (within capturedNear of the best score) does without it. That
// is the subject the whole tenant talks about ("How did we fix the import
// cycle in billing-worker?" in a conversation about billing-worker): the
// model ranks every memory naming it alike, while BM25, which knows the
// name is common, finds the memory saying what is asked — without the
// name, which the conversation did not repeat. Such a question leans on
// the words as when the channels are apart. A transcript memory's speaker
// prefix does not count: a name in every turn of its speaker is who spoke
// (speaker focus reads it), not a subject.
func capturedSubjects(query string, dense, lex []store.Hit) []string {
	if len(dense) < apartTop || len(lex) == 0 {
		return nil
	}
	terms := uniqueTerms(query)
	if len(terms) == 0 {
		return nil
	}
	// Each memory's words are read once, whatever the number of terms.
	held := func(m *memory.Memory) map[string]bool {
		in := map[string]bool{}
		lexical.AnyTerm(saidText(m), func(u string) bool {
			if slices.Contains(terms, u) {
				in[u] = true
			}
			return false
		})
		return in
	}
	count := map[string]int{}
	for i := range dense[:apartTop] {
		for t := range held(&dense[i].Memory) {
			count[t]++
		}
	}
	var subjects []string
	for _, t := range terms {
		if count[t] >= capturedMin {
			subjects = append(subjects, t)
		}
	}
	if len(subjects) == 0 {
		return nil
	}
	var out []string
	for i := range lex {
		if lex[i].Score < capturedNear*lex[0].Score {
			break
		}
		in := held(&lex[i].Memory)
		for _, t := range subjects {
			if !in[t] && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		if len(out) == len(subjects) {
			break // every subject is captured: the other hits cannot add one
		}
	}
	return out
}

// A captured subject also weighs in the lexical channel: the name of the
// project a conversation is about adds as much BM25 to every memory naming
// it as the question's rarest word adds to the answer, so "How did we fix
// the import cycle in metrics-exporter?" tied the answer with "How should
// metrics-exporter split its imports into batches?". When the subject is a
// name (namesSomething), such a question's lexical score is
// withoutSubjectShare that of the question without the name (a second
// lexical search) and the rest that of the whole question, each relative to
// its best hit. The memories naming the subject keep the rest of their
// score: the subject says where to look, only not what was asked. On the
// dev sets (built-in model) a share of 0.5 took the code class's nDCG@10 up
// on all four DevChat sets (classes 0.757 → 0.795 and recall_any@10 0.946 →
// 0.964; DevChat 0.857 → 0.906; aliases 0.727 → 0.778; names 0.724 →
// 0.733) and newer-above-older up on two (0.833 → 0.864, 0.877 → 0.908),
// and left LoCoMo dev as it was. Taking out any captured word, not only a
// name, cost LoCoMo ("What is Gina's favorite style of dance?") and a
// classes temporal question about an "error"; only the question without the
// name (share 1.0) lost multi-session questions ("Which errors have we
// fixed in dashboard-web so far?" is left with "fixed"); 0.3 gave back most
// of the code gain (docs/BENCHMARKS.md).
const withoutSubjectShare = 0.5

// searchWithout is the lexical channel's search for text without the names
// that give one of subjects (withoutTerms); none when there is no such
// question.
func (r *Recaller) searchWithout(ctx context.Context, sc *store.Scratch, tenant, text string, subjects []string, f store.Filter, k int) ([]store.Hit, error) {
	rest := withoutTerms(text, subjects)
	if rest == "" {
		return nil, nil
	}
	hits, err := r.store.SearchText(ctx, store.TextQuery{Tenant: tenant, Text: rest, K: r.lexicalK(k), Filter: f, Scratch: sc})
	if err != nil {
		return nil, fmt.Errorf("lexical search without the subject: %w", err)
	}
	return hits, nil
}

// withoutTerms is text without the names (namesSomething) that give one of
// terms; "" when it takes out no word or leaves no term.
func withoutTerms(text string, terms []string) string {
	var keep []string
	dropped := false
	for i, w := range strings.Fields(text) {
		if !namesSomething(i, w) || !lexical.AnyTerm(w, func(t string) bool { return slices.Contains(terms, t) }) {
			keep = append(keep, w)
			continue
		}
		dropped = true
	}
	rest := strings.Join(keep, " ")
	if !dropped || len(lexical.Terms(rest)) == 0 {
		return ""
	}
	return rest
}

// capturedMin of the dense channel's first apartTop hits holding one query
// term make it the subject (capturedSubjects).
const capturedMin = 8

// capturedNear: a lexical hit scoring at least this share of the best is
// one of the lexical channel's best for capturedSubjects. BM25 often puts
// the answer a hair below a memory naming the subject and one other query
// word by chance ("fix" in "a fixed set of ports"); only the first hit
// counted, and such a question kept the dense channel's weights. On the dev
// sets (built-in model) 0.9 took devchat-aliases code recall_any@10 0.948 →
// 0.983 and the classes' multi-session 0.769 → 0.795, and left LoCoMo,
// DevChat and devchat-names as they were; 0.8 cost a LoCoMo single-hop
// question (docs/BENCHMARKS.md).
const capturedNear = 0.9

// uniqueTerms are the distinct terms of text, in order.
func uniqueTerms(text string) []string {
	ts := lexical.Terms(text)
	out := ts[:0]
	for i, t := range ts {
		if !slices.Contains(ts[:i], t) {
			out = append(out, t)
		}
	}
	return out
}

// weightsFor are the channel weights for query over its candidates:
// AdaptiveWeights, leaned to apartWeights when the channels that found
// them are apart and the query names no time.
func weightsFor(query string, cands []candidate) Weights {
	w := AdaptiveWeights(query)
	if w.Vector <= apartWeights.Vector {
		return w
	}
	for _, c := range cands {
		if c.apart {
			if temporal.Mentions(query) {
				return w
			}
			return apartWeights
		}
	}
	return w
}

// keepHits returns the hits keep accepts.
func keepHits(hits []store.Hit, keep func(memory.Memory) bool) []store.Hit {
	out := make([]store.Hit, 0, len(hits))
	for _, h := range hits {
		if keep(h.Memory) {
			out = append(out, h)
		}
	}
	return out
}

// relevance fuses a candidate's signals (003 §4.3): a weighted blend, a
// boost for memories both channels found (gated by semantic strength), a
// cap for lexical-only hits without semantic support, and a penalty for
// semantic-only hits that share no term with the query.
func relevance(c candidate, w Weights, queryTerms map[string]bool) float64 {
	rel := w.Vector*math.Max(0, c.semantic) + w.Text*c.lexical
	switch {
	case c.dense && c.text:
		gate := math.Min(1, c.semantic/0.45)
		rel *= 1 + c.lexical*0.3*math.Max(0, gate)
	case c.text && c.semantic < 0.2:
		rel = math.Min(rel, c.lexical*0.25)
	case !c.text && !c.timed && !c.sharesTerm(queryTerms):
		rel *= 0.7
	}
	return math.Min(1, rel)
}

// sharesTerm reports whether the candidate's text holds one of the query's
// terms: as the store said when it was asked (its index, content, key and
// tags), else by reading the content.
func (c candidate) sharesTerm(queryTerms map[string]bool) bool {
	if len(queryTerms) == 0 {
		return true
	}
	if c.terms != store.TermsUnknown {
		return c.terms == store.TermsSome
	}
	return lexical.AnyTerm(c.mem.Content, func(t string) bool { return queryTerms[t] })
}

func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	// Four sums: the loop is bound by its adds' latency, not the loads.
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}

// channels runs the dense and lexical searches: in one round trip when the
// store can (store.HybridSearcher), else as two calls in parallel.
func (r *Recaller) channels(ctx context.Context, sc *store.Scratch, tenant string, query queryVector, text string, f store.Filter, k int) (vec []float32, dense, lex []store.Hit, err error) {
	if hs, ok := r.store.(store.HybridSearcher); ok {
		if vec, err = query(ctx); err != nil {
			return nil, nil, nil, err
		}
		if noDirection(vec) {
			lex, err = r.store.SearchText(ctx, store.TextQuery{Tenant: tenant, Text: text, K: r.lexicalK(k), Filter: f, Scratch: sc})
			if err != nil {
				return nil, nil, nil, fmt.Errorf("lexical search: %w", err)
			}
			return vec, nil, lex, nil
		}
		dense, lex, err = hs.SearchHybrid(ctx, store.HybridQuery{Tenant: tenant, Vector: vec, Text: text, K: k, Filter: f, Chunks: true, Scratch: sc})
		if errors.Is(err, store.ErrDimension) {
			r.denseUnusable(ctx, tenant, err)
			lex, err = r.store.SearchText(ctx, store.TextQuery{Tenant: tenant, Text: text, K: r.lexicalK(k), Filter: f, Scratch: sc})
			dense = nil
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("hybrid search: %w", err)
		}
		return vec, dense, lex, nil
	}
	// The lexical channel starts at once; the dense one once the query's
	// vector is there. Embedding the query is most of a recall's time, so
	// the lexical search is off its critical path.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		if vec, err = query(gctx); err != nil {
			return err
		}
		if noDirection(vec) {
			return nil
		}
		dense, err = r.store.Search(gctx, store.Query{Tenant: tenant, Vector: vec, K: k, Filter: f, Chunks: true, Terms: text, Scratch: sc})
		if errors.Is(err, store.ErrDimension) {
			r.denseUnusable(gctx, tenant, err)
			dense, err = nil, nil
		}
		if err != nil {
			return fmt.Errorf("dense search: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		var err error
		lex, err = r.store.SearchText(gctx, store.TextQuery{Tenant: tenant, Text: text, K: r.lexicalK(k), Filter: f, Scratch: sc})
		if err != nil {
			return fmt.Errorf("lexical search: %w", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, nil, nil, err
	}
	return vec, dense, lex, nil
}

// noDirection reports whether the model put the query nowhere: a vector of
// zeros (a remote model's answer to a question of punctuation alone, say).
// Nothing is nearer to it than anything else, and a store refuses it; the
// dense channel is then left out and the words alone answer.
func noDirection(vec []float32) bool {
	for _, f := range vec {
		if f != 0 {
			return false
		}
	}
	return true
}

// lexicalK is how many hits the lexical channel contributes when the dense
// one contributes k: half, but never fewer than a recall's results. BM25's
// hits beyond its first hundred hardly ever reach the top ten once fused
// (on the three evaluation sets, 100 against 200 lexical candidates: the
// same recall_any@10, nDCG@10 within 0.001; 50 lost 0.005 on LoCoMo), and
// each one is a memory decoded and ranked: a sixth of a recall's CPU went
// to the lexical channel's 200 (docs/BENCHMARKS.md).
func (r *Recaller) lexicalK(k int) int {
	return min(k, max((k+1)/2, r.cfg.MaxResults))
}

// queryVector yields the query's vector: the model's answer for the
// request's query (computed while the lexical channel runs), or a vector
// already at hand (expansions embed their phrasings together).
type queryVector func(ctx context.Context) ([]float32, error)

// knownVector is the queryVector of a vector already computed.
func knownVector(v []float32) queryVector {
	return func(context.Context) ([]float32, error) { return v, nil }
}

// embedError marks a failure to embed the query, which Recall reports as
// such rather than as a failed search.
type embedError struct{ err error }

func (e *embedError) Error() string { return e.err.Error() }
func (e *embedError) Unwrap() error { return e.err }

// denseUnusable notes a dense search the store refused for a query vector
// of another width than the tenant's stored vectors (store.ErrDimension),
// while a tenant moves to a new embedding model (recollect reindex) and
// before its old vectors are cleared. Recall answers from the lexical
// channel alone meanwhile rather than failing.
func (r *Recaller) denseUnusable(ctx context.Context, tenant string, err error) {
	r.log.WarnContext(ctx, "dense search refused, recalling lexically", "tenant", tenant, "error", err)
}

// namesSomething reports whether w, the i-th word of a question, is a name:
// an identifier (words joined by - _ . / : @, "metrics-exporter") or a
// capitalised word after the first. Only a name is taken out of a question
// as its subject: a common word that holds the dense channel ("error" in a
// conversation about errors, "dance" in one about dancing) is also what is
// asked.
func namesSomething(i int, w string) bool {
	w = strings.Trim(w, `"'.,;:!?()`)
	if strings.ContainsAny(strings.Trim(w, joinerChars), joinerChars) {
		return true
	}
	r := []rune(w)
	return i > 0 && len(r) > 1 && unicode.IsUpper(r[0])
}

// joinerChars join the parts of an identifier (as lexical's terms read them).
const joinerChars = "-_./:@"

// bestScore is the highest score of hits, 0 for none.
func bestScore(hits []store.Hit) float64 {
	best := 0.0
	for _, h := range hits {
		best = math.Max(best, h.Score)
	}
	return best
}

// relativeScore is score over the best score of its search (in [0, 1] for
// a score of that search); 0 when the best is 0.
func relativeScore(score, best float64) float64 {
	if best <= 0 {
		return 0
	}
	return score / best
}
