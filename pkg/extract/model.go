package extract

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/extract/rules"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Chatter is the model client the extractor needs; *llm.Client is one.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// callResult is one model call's answer for one domain and window.
type callResult struct {
	domain  string
	window  int
	facts   []rawFact
	outcome string
	err     error // set when outcome is callFailed or callUnparseable
}

// transient reports whether a failed call may succeed later: the model
// was unreachable or the time ran out, not the request at fault.
func (r callResult) transient() bool {
	if r.outcome != callFailed {
		return false
	}
	return errors.Is(r.err, llm.ErrUnavailable) || errors.Is(r.err, context.DeadlineExceeded) ||
		errors.Is(r.err, context.Canceled)
}

// modelResult is an extraction over every domain and window.
type modelResult struct {
	calls []callResult
}

// failedAll reports whether every call failed in a way a later try may
// fix; then nothing was extracted and the work should be retried.
func (r modelResult) failedAll() bool {
	if len(r.calls) == 0 {
		return false
	}
	for _, c := range r.calls {
		if !c.transient() {
			return false
		}
	}
	return true
}

// failed counts the calls that produced nothing because of an error.
func (r modelResult) failed() int {
	n := 0
	for _, c := range r.calls {
		if c.outcome == callFailed || c.outcome == callUnparseable {
			n++
		}
	}
	return n
}

// extractModel asks the model for each domain's facts in each window, all
// calls at once (the LLM client bounds each tenant's concurrency). One
// call failing loses nothing of the others.
func (x *Extractor) extractModel(ctx context.Context, o *origin, wins []window) modelResult {
	ids := x.domains.IDs()
	res := modelResult{calls: make([]callResult, len(ids)*len(wins))}
	var wg sync.WaitGroup
	for wi, w := range wins {
		for di, d := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := x.callDomain(ctx, o, d, w)
				r.window = wi
				res.calls[i] = r
			}(wi*len(ids) + di)
		}
	}
	wg.Wait()
	return res
}

// callDomain makes one domain's call. An answer that cannot be read gets
// one repair request; if that is unreadable too, the call is counted and
// logged as unparseable, never dropped without a trace.
func (x *Extractor) callDomain(ctx context.Context, o *origin, domain string, w window) callResult {
	r := callResult{domain: domain}
	req := llm.Request{
		Tenant: o.tenant, Component: "extract", Tier: llm.TierExtract,
		System:    systemPrompt(x.domains.Prompt(domain), x.cfg.MaxFacts),
		Messages:  []llm.Message{{Role: llm.RoleUser, Content: userMessage(w)}},
		JSON:      true,
		MaxTokens: x.cfg.MaxTokens,
	}
	if x.cfg.Temperature >= 0 {
		req.Temperature = llm.Temperature(x.cfg.Temperature)
	}
	resp, err := x.chat.Chat(ctx, req)
	if err != nil {
		return x.callFailed(o, r, err)
	}
	facts, how, perr := parseAnswer(resp.Content)
	if perr == nil {
		r.facts = facts
		r.outcome = outcomeOf(how, len(facts))
		x.m.calls.WithLabelValues(domain, r.outcome).Inc()
		return r
	}
	req.Messages = repairMessages(req.Messages, resp.Content, resp.FinishReason == "length", perr)
	resp2, err := x.chat.Chat(ctx, req)
	if err != nil {
		return x.callFailed(o, r, err)
	}
	facts, _, perr2 := parseAnswer(resp2.Content)
	if perr2 != nil {
		r.outcome, r.err = callUnparseable, perr2
		x.m.calls.WithLabelValues(domain, callUnparseable).Inc()
		x.log.Warn("llm extraction answer unreadable after a repair request, facts of this domain lost",
			"tenant", o.tenant, "session", o.session, "subject", o.subject, "domain", domain, "event", o.event,
			"answer", snippet(resp2.Content, 300), "first_answer", snippet(resp.Content, 300), "error", perr2)
		return r
	}
	r.facts, r.outcome = facts, callRepaired
	x.m.calls.WithLabelValues(domain, callRepaired).Inc()
	return r
}

func (x *Extractor) callFailed(o *origin, r callResult, err error) callResult {
	r.outcome, r.err = callFailed, err
	x.m.calls.WithLabelValues(r.domain, callFailed).Inc()
	x.log.Warn("llm extraction call failed", "tenant", o.tenant, "session", o.session, "subject", o.subject,
		"domain", r.domain, "event", o.event, "error", err)
	return r
}

func outcomeOf(how parseHow, n int) string {
	switch {
	case how == parsedSalvaged:
		return callSalvaged
	case how == parsedTidied:
		return callTidied
	case n == 0:
		return callEmpty
	}
	return callOK
}

func snippet(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// modelFacts filters the model's facts: each grounded in the window it
// came from, typed, keyed and confident as 001 says.
func (x *Extractor) modelFacts(o *origin, wins []window, res modelResult) []memory.FactMessage {
	srcs := make([]*sourceOnce, len(wins))
	for i, w := range wins {
		srcs[i] = &sourceOnce{text: w.source()}
	}
	var out []memory.FactMessage
	seen := map[string]bool{}
	for _, c := range res.calls {
		for _, f := range c.facts {
			typ := normType(f.Type, f.Key)
			if strings.HasPrefix(memory.NormalizeKey(f.Key), "style/") {
				typ = memory.TypeStyle
			}
			cand := candidate{
				key: normKey(f.Key, typ, f.Value), content: f.Value, evidence: f.Evidence, tags: f.Tags,
				domain: c.domain, typ: typ, kind: normKind(f.Kind, typ), importance: rules.ImportanceOf(typ),
				confidence: confidenceOf(f.Explicit), rule: producerLLM, producer: producerLLM,
			}
			src := srcs[c.window].get()
			if typ == memory.TypeStyle {
				// A style observation describes how the user writes, which
				// the words do not state: no grounding (injection and
				// secret checks still apply), evidence only if verbatim.
				cand.id, src = keyedID(o, cand.key), nil
				if !strings.Contains(srcs[c.window].text, strings.TrimSpace(cand.evidence)) {
					cand.evidence = ""
				}
			}
			fm, ok := x.admit(o, src, x.filter, cand)
			if !ok || seen[fm.Memory.ID] {
				continue
			}
			seen[fm.Memory.ID] = true
			out = append(out, fm)
		}
	}
	return out
}

// keyedID is the id of a memory that is one per key and subject: a style
// observation, the personality directive.
func keyedID(o *origin, key string) string {
	return memory.DeterministicID(o.tenant, o.namespace, o.subject, "key", key)
}

// withDeadline bounds ctx by d unless it ends sooner already.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// sourceOnce prepares a window's text for grounding when a fact first
// needs it.
type sourceOnce struct {
	text string
	src  *filter.Source
}

func (s *sourceOnce) get() *filter.Source {
	if s.src == nil {
		s.src = filter.NewSource(s.text)
	}
	return s.src
}
