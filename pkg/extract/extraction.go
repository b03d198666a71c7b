package extract

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// errModelUnavailable means no domain's call got through: the model was
// down or too slow for every one of them. Nothing was extracted, so the
// work is worth retrying later.
var errModelUnavailable = errors.New("llm unavailable for every domain")

// limits are the model input limits for an extraction.
func (x *Extractor) limits() inputLimits {
	return inputLimits{message: x.cfg.MaxMessageChars, conversation: x.cfg.MaxConversationChars, windows: x.cfg.MaxWindows}
}

// extractWindows runs the LLM extraction of msgs for every domain,
// publishes the facts that pass the filters and records the style
// observations among them. It fails with errModelUnavailable when no call
// got through, and with the publish error when publishing failed.
func (x *Extractor) extractWindows(ctx context.Context, o *origin, msgs []memory.Message, trigger string) error {
	wins, dropped := windows(msgs, x.limits())
	if dropped > 0 {
		x.m.dropped.WithLabelValues("messages").Add(float64(dropped))
		x.log.Info("conversation longer than the extraction windows, earliest messages left to rule capture",
			"tenant", o.tenant, "session", o.session, "dropped", dropped, "windows", len(wins))
	}
	if len(wins) == 0 {
		x.m.extractions.WithLabelValues(trigger, "skipped").Inc()
		return nil
	}
	start := time.Now()
	res := x.extractModel(ctx, o, wins)
	x.m.seconds.WithLabelValues(trigger).Observe(time.Since(start).Seconds())
	if res.failedAll() {
		x.m.extractions.WithLabelValues(trigger, "retry").Inc()
		return fmt.Errorf("%w (%d calls)", errModelUnavailable, len(res.calls))
	}
	facts := x.modelFacts(o, wins, res)
	if err := x.publish(ctx, facts); err != nil {
		x.m.extractions.WithLabelValues(trigger, "failed").Inc()
		return err
	}
	outcome := "ok"
	if res.failed() > 0 {
		outcome = "partial"
	}
	x.m.extractions.WithLabelValues(trigger, outcome).Inc()
	x.log.Debug("llm extraction", "tenant", o.tenant, "session", o.session, "trigger", trigger,
		"windows", len(wins), "facts", len(facts), "failed_calls", res.failed())
	x.observeStyles(ctx, o, facts)
	return nil
}
