package extract

import (
	"context"
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// directiveImportance keeps the directive near the top of its subject's
// memories; it is stored in the core layer.
const directiveImportance = 0.9

// observeStyles records the style observations among facts for their
// subject (reinforcing, never overwriting, 001) and, once enough live
// ones exist and they changed since the last directive, synthesises a new
// personality directive. Failures are logged: the facts are out already,
// and the next observation tries again.
func (x *Extractor) observeStyles(ctx context.Context, o *origin, facts []memory.FactMessage) {
	var obs []memory.Memory
	for _, f := range facts {
		if f.Memory.Type == memory.TypeStyle && strings.HasPrefix(f.Memory.Key, "style/") {
			obs = append(obs, f.Memory)
		}
	}
	if len(obs) == 0 {
		return
	}
	key := stateKey(stylePrefix, o.tenant, o.namespace, o.subject)
	now := x.now().UTC()
	st, _, err := x.styles.update(ctx, key, func(s *styles, _ bool) (bool, error) {
		changed := s.decay(now) > 0
		for _, m := range obs {
			changed = s.observe(m.Key, m.Content, m.Confidence, now, o.event) || changed
		}
		return changed, nil
	})
	if err != nil {
		x.log.Warn("record style observations", "tenant", o.tenant, "subject", o.subject, "error", err)
		return
	}
	if !x.cfg.Personality || len(st.Obs) < x.cfg.MinStyleObservations {
		return
	}
	top := st.strongest(maxDirectiveObs)
	fp := fingerprint(top)
	if fp == st.DirectiveOf {
		return
	}
	if err := x.directive(ctx, o, top, fp); err != nil {
		x.m.directives.WithLabelValues("failed").Inc()
		x.log.Warn("personality directive", "tenant", o.tenant, "subject", o.subject, "error", err)
		return
	}
	if _, _, err := x.styles.update(ctx, key, func(s *styles, _ bool) (bool, error) {
		s.DirectiveOf = fp
		return true, nil
	}); err != nil {
		x.log.Warn("record personality directive", "tenant", o.tenant, "subject", o.subject, "error", err)
	}
}

// directive synthesises the directive from the strongest observations and
// publishes it as the subject's core memory under DirectiveKey; the
// embedder replaces the previous one's content.
func (x *Extractor) directive(ctx context.Context, o *origin, top []styleObs, fp string) error {
	req := llm.Request{
		Tenant: o.tenant, Component: "personality", Tier: llm.TierDistill,
		Messages:  []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf(directivePrompt, observationLines(top))}},
		MaxTokens: 400,
	}
	if x.cfg.Temperature >= 0 {
		req.Temperature = llm.Temperature(x.cfg.Temperature)
	}
	resp, err := x.chat.Chat(ctx, req)
	if err != nil {
		return fmt.Errorf("synthesise from %d observations: %w", len(top), err)
	}
	text := strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(resp.Content), "`\"")), " ")
	conf := 0.0
	for _, ob := range top {
		conf += ob.Confidence
	}
	d := *o
	d.event = "directive:" + o.tenant + ":" + fp
	d.ids = []string{d.event}
	fm, ok := x.admit(&d, nil, x.long, candidate{
		key: DirectiveKey, content: text, tags: []string{"personality"}, domain: memory.DomainUserPreferences,
		typ: memory.TypeStyle, kind: memory.KindSemantic, layer: memory.LayerCore, importance: directiveImportance,
		confidence: conf / float64(len(top)), rule: producerDirective, producer: producerDirective,
		id: keyedID(o, DirectiveKey),
	})
	if !ok {
		x.m.directives.WithLabelValues("rejected").Inc()
		return nil
	}
	if err := x.publish(ctx, []memory.FactMessage{fm}); err != nil {
		return err
	}
	x.m.directives.WithLabelValues("ok").Inc()
	return nil
}
