package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// The time channel. For a question naming a time window of at most
// store.MaxDaySpan days ("on May 3", "last week", "yesterday"), a third
// candidate channel fetches, ranked by meaning, the memories the store's
// time index holds under the window's days: their event time falls in it,
// or a time they name, resolved against their event time at ingest
// ("Yesterday I was in Lisbon" said on May 4 names May 3). Such a memory
// may share no word with the question, so neither other channel finds it,
// and the window boost (timerank.go) never sees it. The store answers from
// an index (store.Filter.Days), never a scan; a question without a narrow
// window, or a store without the index, skips the channel.

// timeChannelK is the most memories the channel adds: a day's memories
// are few, and the window boost ranks them.
const timeChannelK = 50

// queryDays are the days of the request's time windows, nil when it names
// none or one wider than store.MaxDaySpan days.
func queryDays(req Request) []int32 {
	var days []int32
	for _, w := range req.time.Windows {
		d := store.WindowDays(w.From, w.To)
		if d == nil {
			return nil
		}
		days = append(days, d...)
	}
	slices.Sort(days)
	return slices.Compact(days)
}

// onceVector computes the query's vector once however many channels ask.
func onceVector(v queryVector) queryVector {
	var (
		once sync.Once
		vec  []float32
		err  error
	)
	return func(ctx context.Context) ([]float32, error) {
		once.Do(func() { vec, err = v(ctx) })
		return vec, err
	}
}

// timeTermShare is the share of the query's terms that name its time
// ("may" and "14" of "what did I do on May 14?"): the lexical score a
// memory would have if it wrote the date the question names. A memory the
// time channel finds matches those words by what it means, so it gets at
// least that share as its lexical score; otherwise a memory that says
// "yesterday" and shares no other word with the question falls under the
// relevance floor before its time match is counted.
func timeTermShare(req Request) float64 {
	terms := lexical.Terms(req.Query)
	if len(terms) == 0 {
		return 0
	}
	timed := map[string]bool{}
	for _, t := range lexical.Terms(strings.Join(req.time.Terms, " ")) {
		timed[t] = true
	}
	n := 0
	for _, t := range terms {
		if timed[t] {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}

// addTimeHits runs the time channel for days and merges its hits into
// cands, marked as found by time, which spares them the no-shared-term
// penalty: a memory already found keeps its scores, a new one joins with
// its cosine. One indexed under the days by a time it names, not by its
// event time, also scores at least share as its lexical signal
// (timeTermShare); one whose event time lies in the window needs no more:
// the time factor matches it without reading its content, and lifting
// every turn of a day's conversation alike only crowds the answer
// (measured on LoCoMo dev with it: recall_any@10 −0.004, nDCG@10 −0.004).
func (r *Recaller) addTimeHits(ctx context.Context, sc *store.Scratch, tenant string, vec queryVector, f store.Filter, days []int32, share float64, keep func(memory.Memory) bool, cands []candidate) ([]candidate, error) {
	v, err := vec(ctx)
	if err != nil {
		return nil, err
	}
	f.Days = days
	hits, err := r.extraChannel(ctx, "time channel", store.Query{Tenant: tenant, Vector: v, K: timeChannelK, Filter: f, Chunks: true, Scratch: sc})
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(cands))
	for i, c := range cands {
		at[c.mem.ID] = i
	}
	for j := range hits {
		h := &hits[j]
		if keep != nil && !keep(h.Memory) {
			continue
		}
		lex := share
		if _, event := slices.BinarySearch(days, store.Day(h.Memory.CreatedAt)); event {
			lex = 0
		}
		if i, ok := at[h.Memory.ID]; ok {
			cands[i].timed, cands[i].lexical = true, max(cands[i].lexical, lex)
			continue
		}
		cands = append(cands, candidate{mem: &h.Memory, semantic: h.Score, lexical: lex, dense: true, timed: true})
	}
	return cands, nil
}

// extraChannel runs the dense search of a channel beside the two (the time
// and session channels). The other channels answered: when it fails, recall
// goes on without it, as it does without a failed LLM step, unless the
// request is gone; a store of another dimension gives no hits (the dense
// channel said so already).
func (r *Recaller) extraChannel(ctx context.Context, name string, q store.Query) ([]store.Hit, error) {
	hits, err := r.store.Search(ctx, q)
	switch {
	case errors.Is(err, store.ErrDimension):
		return nil, nil
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case err != nil:
		r.log.WarnContext(ctx, name+" failed, recalling without it", "tenant", q.Tenant, "error", err)
		return nil, nil
	}
	return hits, nil
}
