package recall

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/samefact"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/temporal"
)

// Time in recall. A memory's event time is its CreatedAt (the ts of the
// event it came from). A request is answered as of AsOf (default: now):
//   - recency is measured from AsOf, on a scale set by the span of the
//     candidates' event times (at least a week), so a conversation two years
//     old still has a gradient from its first session to its last;
//   - a time window the question names ("in June", "last week") boosts
//     memories whose event time, or a time their content names relative
//     to it ("yesterday", "last Friday"), falls in or near the window;
//     filters.time "query" makes the window a hard filter instead;
//   - a question asking when something happened prefers memories that
//     mention a time;
//   - among memories competing about the same thing, the newer ranks above
//     the older unless the question asks about the past or names a window.
const (
	// recencySpans is the recency scale in spans of the candidates' event
	// times: the oldest candidate keeps exp(-1/4) ≈ 0.78 of the newest's.
	recencySpans = 4
	// recencyMinScale is the smallest recency scale, for candidates that
	// span little time: 003's one week.
	recencyMinScale = 168 * time.Hour
	// windowBoost is the score factor's growth for a full window match.
	windowBoost = 0.8
	// whenBoost is the factor's growth for a memory naming a time when the
	// question asks when.
	whenBoost = 0.2
	// windowTail is how long after a window memories still talk about it
	// (people tell of last week's events this week), and windowLead how
	// far before it a memory may still belong (plans, dates written
	// loosely): the distance at which a match falls to 1/e, at least.
	windowTail = 7 * 24 * time.Hour
	windowLead = 24 * time.Hour
	// newerTop bounds the results compared for newer-wins (pairs grow
	// with its square).
	newerTop = 20
	// conflictCosine: two memories of one subject this similar, which
	// samefact does not find to be the same statement (a detail differs,
	// the newer adds one, or the words differ), state competing versions
	// of one fact.
	conflictCosine = 0.8
	// transcriptConflictCosine: two conversation turns compete when said by
	// one speaker, the newer saying that something changed (saysChange),
	// and this similar (issue 21: on DevChat, newer-above-older 0.833 →
	// 0.889 and nDCG@10 0.764 → 0.767; LoCoMo dev nDCG@10 0.658 → 0.660;
	// without the change word, LoCoMo lost 0.003 to stable facts said
	// twice; 0.6 and 0.5 did worse on both).
	transcriptConflictCosine = 0.7
	// transcriptAgeing: a conversation turn ages this many times slower
	// than a fact. What was said stays said, and an update said later is
	// put first by newer-wins, which now reads turns (issue 21: on LoCoMo
	// dev, 1 → 4 took recall_any@10 from 0.858 to 0.867 and nDCG@10 from
	// 0.660 to 0.665, DevChat nDCG@10 0.7685 → 0.7699 but newer-above-older
	// 0.889 → 0.875, one question of 72; 2 gave 0.865 / 0.663, 6.7 gave
	// 0.866 / 0.666 and lost newer-above-older on the long-thread classes
	// too, no recency at all lost 0.03 of it on DevChat and 0.1 on those).
	transcriptAgeing = 4
	// timeDepth: the content of a candidate is read for the times it names
	// only if a full window match could lift it into the best timeDepth × k.
	timeDepth = 4
	// maxTimeParseChars bounds the content read for the times it names.
	maxTimeParseChars = 1000
)

// MaxAsOfFuture bounds how far after now a request's as_of may lie.
const MaxAsOfFuture = 10 * 365 * 24 * time.Hour

// Time filter modes (filters.time).
const (
	TimeFilterSoft  = ""      // the question's window boosts ranking
	TimeFilterQuery = "query" // only memories whose event time is in the question's window
)

// TimeInfo explains how recall read time for a request.
type TimeInfo struct {
	AsOf     time.Time         `json:"as_of"`
	Windows  []temporal.Window `json:"windows,omitempty"`
	AsksWhen bool              `json:"asks_when,omitempty"`
	Past     bool              `json:"past,omitempty"`
	Recent   bool              `json:"recent,omitempty"`
	Terms    []string          `json:"terms,omitempty"`
	// Filtered says the windows filtered the candidates (filters.time
	// "query" and a window found).
	Filtered bool `json:"filtered,omitempty"`
	// RecencyScaleHours is the scale recency decayed on: the candidates'
	// span of event times, at least a week.
	RecencyScaleHours float64 `json:"recency_scale_hours,omitempty"`
	// RecencyApplied says recency decayed with age: only for a question
	// about the current state (see currentState); otherwise every
	// memory's recency is 1.
	RecencyApplied bool `json:"recency_applied"`
	// NewerWins says competing memories were ordered newest first.
	NewerWins bool `json:"newer_wins,omitempty"`
	// ValidAt and KnownAt are the time view the candidates were filtered
	// by: what was true at ValidAt (the request's as_of, when given), what
	// Recollect knew at KnownAt.
	ValidAt time.Time `json:"valid_at,omitzero"`
	KnownAt time.Time `json:"known_at,omitzero"`
}

// Instant is a request's as_of: an RFC 3339 time whose parse error names
// the field.
type Instant struct{ time.Time }

// At makes an Instant.
func At(t time.Time) Instant { return Instant{t} }

// UnmarshalJSON reads an RFC 3339 string.
func (t *Instant) UnmarshalJSON(b []byte) error {
	if err := t.Time.UnmarshalJSON(b); err != nil {
		return &memory.FieldError{Field: "as_of", Reason: fmt.Sprintf("must be an RFC 3339 time such as 2023-05-07T18:30:00Z (got %s)", cut(string(b), 40))}
	}
	return nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkTime validates as_of and filters.time against now.
func (req *Request) checkTime(now time.Time) error {
	if err := memory.CheckTime("as_of", req.AsOf.Time, now, MaxAsOfFuture); err != nil {
		return err
	}
	if err := memory.CheckTime("known_at", req.KnownAt.Time, now, MaxAsOfFuture); err != nil {
		return err
	}
	switch req.Filters.Time {
	case TimeFilterSoft, TimeFilterQuery:
	default:
		return &memory.FieldError{Field: "filters.time", Reason: fmt.Sprintf("must be %q or empty (got %q)", TimeFilterQuery, req.Filters.Time)}
	}
	return nil
}

// readTime fills the request's as_of (default now) and parses the query's
// time expressions.
func (r *Recaller) readTime(req *Request) error {
	now := r.now()
	if err := req.checkTime(now); err != nil {
		return err
	}
	req.view = memory.TimeView{AsOf: req.AsOf.Time, KnownAt: req.KnownAt.Time}
	if req.AsOf.IsZero() {
		req.AsOf = Instant{now}
	}
	req.time = temporal.Parse(req.Query, req.AsOf.Time)
	return nil
}

// timeFilter narrows f to the hull of the query's windows when
// filters.time is "query".
func timeFilter(req Request, f store.Filter) (store.Filter, bool) {
	if req.Filters.Time != TimeFilterQuery || len(req.time.Windows) == 0 {
		return f, false
	}
	var from, to time.Time
	openFrom, openTo := false, false
	for _, w := range req.time.Windows {
		if w.From.IsZero() {
			openFrom = true
		} else if from.IsZero() || w.From.Before(from) {
			from = w.From
		}
		if w.To.IsZero() {
			openTo = true
		} else if w.To.After(to) {
			to = w.To
		}
	}
	if !openFrom && (f.CreatedAfter.IsZero() || from.After(f.CreatedAfter)) {
		f.CreatedAfter = from.Add(-time.Nanosecond) // CreatedAfter is exclusive; windows start inclusive
	}
	if !openTo && (f.CreatedBefore.IsZero() || to.Before(f.CreatedBefore)) {
		f.CreatedBefore = to
	}
	return f, true
}

// timeRank is the time side of one ranking.
type timeRank struct {
	asOf  time.Time
	q     temporal.Query
	scale time.Duration
	// windows are the windows that rank: all but a "recently" one when a
	// named window is there too.
	windows []temporal.Window
}

func newTimeRank(req Request, hits []hit) *timeRank {
	asOf := req.AsOf.Time
	if asOf.IsZero() {
		asOf = req.time.AsOf
	}
	tr := &timeRank{asOf: asOf, q: req.time, scale: recencyMinScale, windows: req.time.Windows}
	var oldest, newest time.Time
	for _, h := range hits {
		t := h.mem.CreatedAt
		if t.IsZero() {
			continue
		}
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
		if t.After(newest) {
			newest = t
		}
	}
	tr.scale = max(recencyMinScale, recencySpans*newest.Sub(oldest))
	return tr
}

// recency is exp(-age/scale), age from the memory's last use up to as_of
// (its event time, modification or access, whichever is latest and not
// after as_of); a memory whose every time lies after as_of ages by the
// distance. For a question about an event or the past (not currentState)
// it is 1 for every memory: when a memory was written or used says nothing
// about whether it answers.
func (tr *timeRank) recency(m *memory.Memory) float64 {
	if !tr.currentState() {
		return 1
	}
	var last time.Time
	for _, t := range []time.Time{m.CreatedAt, m.ModifiedAt, m.LastAccessed} {
		if !t.After(tr.asOf) && t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		last = m.CreatedAt
	}
	age := tr.asOf.Sub(last)
	if age < 0 {
		age = -age
	}
	scale := float64(tr.scale)
	if m.Transcript() {
		scale *= transcriptAgeing
	}
	return math.Exp(-float64(age) / scale)
}

// applyAll multiplies each result's score by its time factor and records
// its time terms. A result's window match comes from its event time, and
// from the times its content names when that could lift it into the best
// depth results: reading content costs microseconds a memory, so it is
// skipped for those that cannot get there even with a full match.
func (tr *timeRank) applyAll(out []Result, depth int) {
	if len(tr.windows) == 0 && !tr.q.AsksWhen {
		for i := range out {
			out[i].TimeFactor = 1
		}
		return
	}
	maxConf := 0.0
	for _, w := range tr.windows {
		maxConf = max(maxConf, w.Confidence)
	}
	event := make([]float64, len(out))
	eventText := make([]string, len(out))
	lower := make([]float64, len(out))
	for i := range out {
		m := &out[i].Memory
		when := 1.0
		if tr.q.AsksWhen && temporal.Mentions(m.Content) {
			out[i].MentionsTime = true
			when = 1 + whenBoost
		}
		out[i].TimeFactor = when
		event[i], eventText[i] = tr.eventMatch(m)
		lower[i] = out[i].Score * when * (1 + windowBoost*event[i])
	}
	threshold := 0.0
	if len(tr.windows) > 0 && len(out) > depth {
		sorted := slices.Clone(lower)
		slices.Sort(sorted)
		threshold = sorted[len(sorted)-depth]
	}
	for i := range out {
		match, text := event[i], eventText[i]
		upper := out[i].Score * out[i].TimeFactor * (1 + windowBoost*maxConf)
		if len(tr.windows) > 0 && match < maxConf && upper >= threshold {
			if own, w := tr.contentMatch(&out[i].Memory); own > match {
				match, text = own, w
			}
		}
		if match > 0.01 {
			out[i].TimeMatch, out[i].TimeWindow = round3(match), text
			out[i].TimeFactor *= 1 + windowBoost*match
		}
		out[i].Score *= out[i].TimeFactor
	}
}

// eventMatch is the best match, in [0, 1], of the memory's event time with
// the query's windows (confidence times closeness), and that window's words.
func (tr *timeRank) eventMatch(m *memory.Memory) (float64, string) {
	best, text := 0.0, ""
	at := temporal.Window{From: m.CreatedAt, To: m.CreatedAt.Add(time.Nanosecond)}
	for _, w := range tr.windows {
		if s := w.Confidence * closeness(w, at); s > best {
			best, text = s, w.Text
		}
	}
	return best, text
}

// contentMatch is the best match of the windows the memory's content names
// relative to its event time ("yesterday" in a memory of 8 May is 7 May)
// with the query's windows.
func (tr *timeRank) contentMatch(m *memory.Memory) (float64, string) {
	if !temporal.Mentions(m.Content) {
		return 0, ""
	}
	content := m.Content
	if len(content) > maxTimeParseChars {
		content = content[:maxTimeParseChars]
	}
	best, text := 0.0, ""
	for _, o := range temporal.Windows(content, m.CreatedAt) {
		if o.From.IsZero() || o.To.IsZero() {
			continue // "before June" in a memory says little about when it happened
		}
		for _, w := range tr.windows {
			if s := w.Confidence * o.Confidence * closeness(w, o); s > best {
				best, text = s, w.Text
			}
		}
	}
	return best, text
}

// closeness of a span to a window: 1 when they overlap, decaying with the
// gap, more slowly after the window (at least windowTail, or half its
// width) than before it (at least windowLead, or a quarter of its width).
func closeness(w, span temporal.Window) float64 {
	if w.Overlaps(span) {
		return 1
	}
	if !w.From.IsZero() && !span.To.After(w.From) {
		gap := w.From.Sub(span.To)
		return math.Exp(-float64(gap) / float64(max(windowLead, w.Width()/4)))
	}
	gap := span.From.Sub(w.To)
	return math.Exp(-float64(gap) / float64(max(windowTail, w.Width()/2)))
}

// newerWins puts the newer of two memories competing about the same thing
// (see competing) above the
// older: when the older ranks higher, the newer takes a score just above
// the older's, so it ranks right before it and the older keeps its place
// among the rest. Pairs are taken in rank order among the best newerTop, each
// memory moved at most once, so unrelated memories never chain into one
// group. Results must be sorted; they are sorted again. It applies to
// questions about the current state of things only (see currentState): not
// to one that asks about the past ("originally", "before"), is in the past
// or perfect tense ("what did she paint?": an event; "which databases has
// it run on?": a history), or names a time window (then the window
// decides).
func (tr *timeRank) newerWins(out []Result) bool {
	if !tr.currentState() {
		return false
	}
	n := min(len(out), newerTop)
	moved := make([]bool, n)
	any := false
	for i := 0; i < n; i++ {
		if moved[i] {
			continue
		}
		for j := i + 1; j < n; j++ {
			if moved[j] || !out[j].Memory.CreatedAt.After(out[i].Memory.CreatedAt) || !competing(&out[i].Memory, &out[j].Memory) {
				continue
			}
			out[j].Score = math.Nextafter(out[i].Score, math.Inf(1))
			out[i].OutrankedBy = out[j].Memory.ID
			moved[i], moved[j], any = true, true, true
			break
		}
	}
	if any {
		sortResults(out)
	}
	return any
}

// currentState says the question asks about the current state of things,
// not about an event or the past: it does not ask about the past, is not in
// the past or perfect tense ("when did…", "which editors have I used")
// and names no time window. Recency and newer-wins apply to such questions
// only ("when is the cutover due?" included); for the others, when a
// memory was written says nothing about whether it answers.
func (tr *timeRank) currentState() bool {
	return !tr.q.Past && !tr.q.PastTense && !tr.namedWindow()
}

// namedWindow says the question names a window other than "recently".
func (tr *timeRank) namedWindow() bool {
	for _, w := range tr.q.Windows {
		if w.Confidence > 0.3 {
			return true
		}
	}
	return false
}

// competing says a and b state versions of one fact: one subject and the
// same key, or similar vectors (conflictCosine) and a samefact verdict of
// Conflict ("coverage is 65%", "coverage is 78%"), Richer ("set to 20",
// "raised from 20 to 50") or Reworded ("go with GORM", "replacing GORM
// with sqlx"); Same is one statement said twice, which dedup folds. Two
// conversation turns are not versions of a fact by their key (every turn
// of a session has the session's); they compete when one speaker said
// both, the newer says that something changed, and they are similar
// (transcriptConflictCosine) with such a verdict.
func competing(a, b *memory.Memory) bool {
	if a.Subject != b.Subject || a.CreatedAt.Equal(b.CreatedAt) {
		return false
	}
	if a.Key != "" && a.Key == b.Key && !a.Transcript() {
		return true
	}
	limit := conflictCosine
	if a.Transcript() && b.Transcript() {
		newer := a
		if b.CreatedAt.After(a.CreatedAt) {
			newer = b
		}
		// A reply to a message announcing a change carries it ("Reasonable.
		// The new config: …" after "I raised the timeout to 30s").
		if speakerOf(a) != speakerOf(b) || !saysChange(newer.Content) && !saysChange(newer.Evidence) {
			return false
		}
		limit = transcriptConflictCosine
	}
	if cosine(a.Vector, b.Vector) < limit {
		return false
	}
	older, newer := a, b
	if b.CreatedAt.Before(a.CreatedAt) {
		older, newer = b, a
	}
	switch samefact.CompareText(older.Content, newer.Content).Verdict {
	case samefact.Conflict, samefact.Richer, samefact.Reworded:
		return true
	}
	return false
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// timeInfo describes the request's reading of time for the response.
func timeInfo(req Request, tr *timeRank, filtered, newer bool) *TimeInfo {
	q := req.time
	info := &TimeInfo{AsOf: req.AsOf.Time, Windows: q.Windows, AsksWhen: q.AsksWhen, Past: q.Past, Recent: q.Recent,
		Terms: q.Terms, Filtered: filtered, NewerWins: newer, ValidAt: req.view.AsOf, KnownAt: req.view.KnownAt}
	if tr != nil {
		info.RecencyScaleHours = math.Round(tr.scale.Hours())
		info.RecencyApplied = tr.currentState()
	}
	return info
}
