package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// devChatResult is one line of --out.
type devChatResult struct {
	Conversation string     `json:"conversation"`
	ID           string     `json:"id"`
	Category     string     `json:"category"`
	Query        string     `json:"query"`
	Answer       string     `json:"answer"`
	AsOf         *time.Time `json:"as_of,omitempty"` // as sent; absent when not sent
	Expected     []string   `json:"expected"`
	Stale        []string   `json:"stale,omitempty"`
	Got          [][]string `json:"got"`
	// ExpectedRanks and StaleRanks are each id's 1-based rank among the
	// recalled memories, 0 when it was not recalled.
	ExpectedRanks   []int   `json:"expected_ranks"`
	StaleRanks      []int   `json:"stale_ranks,omitempty"`
	NewerAboveOlder *bool   `json:"newer_above_older,omitempty"`
	Ms              float64 `json:"ms"`
	Scores
}

// ask recalls every question in order and scores it.
func (d *devChatRun) ask(ctx context.Context) (rep *DevChatReport, err error) {
	var out *json.Encoder
	if d.dcfg.Out != "" {
		f, err := os.Create(d.dcfg.Out)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", d.dcfg.Out, err)
		}
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("write %s: %w", d.dcfg.Out, cerr)
			}
		}()
		out = json.NewEncoder(f)
	}
	base := d.report
	rep = &DevChatReport{Data: base.Data, K: base.K, Conversations: base.Conversations, Ingest: base.Ingest, Turns: base.Turns,
		Memories: base.Memories, TurnsMerged: base.TurnsMerged, TurnsMissing: base.TurnsMissing}
	all := newTally()
	all.name = devChatCategoryName
	var updates updateTally
	newer := map[string]*updateTally{}
	var lat []time.Duration
	total, asked := 0, 0
	for _, c := range d.chats {
		total += len(c.Questions)
	}
	for i, chat := range d.chats {
		conv := d.convs[i]
		for _, q := range chat.Questions {
			d.cfg.progress(StageQuestions, asked, total)
			asked++
			mems, took, asOf, err := d.recall(ctx, conv.tenant, q.Question, chat.AsOf)
			if err != nil {
				return nil, err
			}
			lat = append(lat, took)
			if len(mems) < d.dcfg.K {
				rep.ShortResults++
			}
			ranked := make([][]string, len(mems))
			for j, m := range mems {
				ranked[j] = conv.diaIDs(m)
			}
			s := Score(ranked, q.Evidence)
			all.add(devChatCategory(q.Category), s)
			res := devChatResult{Conversation: chat.ID, ID: q.ID, Category: q.Category, Query: q.Question, Answer: q.Answer,
				AsOf: asOf, Expected: q.Evidence, Stale: q.Stale, Got: ranked,
				ExpectedRanks: ranks(ranked, q.Evidence), StaleRanks: ranks(ranked, q.Stale), Ms: round4(ms(took)), Scores: s}
			if len(q.Stale) > 0 {
				if newer[q.Category] == nil {
					newer[q.Category] = &updateTally{}
				}
				above := newer[q.Category].add(res.ExpectedRanks, res.StaleRanks)
				res.NewerAboveOlder = &above
				if q.Category == UpdateCategory {
					updates.add(res.ExpectedRanks, res.StaleRanks)
				}
			}
			if out != nil {
				if err := out.Encode(res); err != nil {
					return nil, fmt.Errorf("write %s: %w", d.dcfg.Out, err)
				}
			}
		}
	}
	d.cfg.progress(StageQuestions, asked, total)
	rep.Summary = all.summary()
	rep.Updates = updates.scores()
	rep.Newer = map[string]UpdateScores{}
	for cat, u := range newer {
		rep.Newer[cat] = u.scores()
	}
	rep.BM25 = bm25DevChat(d.chats, d.dcfg.K)
	rep.P50Ms, rep.P99Ms = percentiles(lat)
	return rep, nil
}

// recall asks one question as of asOf while the run sends as_of; in auto
// mode a 400 that names as_of turns sending off and asks again without it.
// It returns the as_of sent (nil when none was).
func (d *devChatRun) recall(ctx context.Context, tenant, query string, asOf time.Time) ([]memory.Memory, time.Duration, *time.Time, error) {
	if d.asOf {
		at := asOf
		t0 := time.Now()
		mems, err := d.client.recallAt(ctx, tenant, query, d.dcfg.K, &at)
		if err == nil {
			return mems, time.Since(t0), &at, nil
		}
		var se *statusError
		if d.dcfg.AsOf != AsOfAuto || !errors.As(err, &se) || se.status != http.StatusBadRequest || !strings.Contains(se.msg, "as_of") {
			return nil, 0, nil, err
		}
		d.asOf, d.refused = false, se.msg
		d.log.Warn("recall refused as_of; asking without it", "tenant", tenant, "answer", se.msg)
	}
	t0 := time.Now()
	mems, err := d.client.recallAt(ctx, tenant, query, d.dcfg.K, nil)
	return mems, time.Since(t0), nil, err
}

// ranks gives each id's 1-based rank in ranked, 0 when absent.
func ranks(ranked [][]string, ids []string) []int {
	if len(ids) == 0 {
		return nil
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		for j, got := range ranked {
			if slices.Contains(got, id) {
				out[i] = j + 1
				break
			}
		}
	}
	return out
}

// best is the smallest non-zero rank, 0 when none.
func best(rs []int) int {
	b := 0
	for _, r := range rs {
		if r > 0 && (b == 0 || r < b) {
			b = r
		}
	}
	return b
}

// UpdateScores measure knowledge-update questions: whether the newest
// evidence ranks above the stale evidence it replaced.
type UpdateScores struct {
	Questions int `json:"questions"`
	// NewerAboveOlder is the share of update questions where the best-ranked
	// current evidence is recalled above every stale one (or no stale one is
	// recalled at all).
	NewerAboveOlder float64 `json:"newer_above_older"`
	// NewerAboveOlderBoth is the same share among the questions where both
	// were recalled: the ordering alone.
	NewerAboveOlderBoth float64 `json:"newer_above_older_when_both"`
	Both                int     `json:"both_recalled"`
	NewerOnly           int     `json:"newer_only"`
	OlderOnly           int     `json:"older_only"`
	Neither             int     `json:"neither"`
}

type updateTally struct {
	UpdateScores
	above, aboveBoth int
}

// add counts one update question and says whether the newer ranked above.
func (u *updateTally) add(current, stale []int) bool {
	u.Questions++
	n, o := best(current), best(stale)
	switch {
	case n > 0 && o > 0:
		u.Both++
		if n < o {
			u.aboveBoth++
			u.above++
			return true
		}
	case n > 0:
		u.NewerOnly++
		u.above++
		return true
	case o > 0:
		u.OlderOnly++
	default:
		u.Neither++
	}
	return false
}

func (u *updateTally) scores() UpdateScores {
	s := u.UpdateScores
	if s.Questions > 0 {
		s.NewerAboveOlder = round4(float64(u.above) / float64(s.Questions))
	}
	if s.Both > 0 {
		s.NewerAboveOlderBoth = round4(float64(u.aboveBoth) / float64(s.Both))
	}
	return s
}
