package recall

import (
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A distilled fact keeps its lead over the messages it came from while it
// answers about as well, but a loose fact does not outrank the message that
// says what was asked; messages among themselves keep their order.
func TestFactLeadNeedsRelevance(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &Recaller{cfg: Config{}.withDefaults(), now: func() time.Time { return now }}
	msg := func(id, content string, rel float64) hit {
		m := memory.Memory{ID: id, Content: content, Layer: memory.LayerBuffer, Importance: 0.2, Confidence: 0.75,
			Type: memory.TypeEpisode, Tags: []string{memory.TranscriptTag}, ModifiedAt: now}
		return hit{candidate: candidate{mem: &m}, rel: rel}
	}
	fact := func(id, content string, rel float64) hit {
		m := memory.Memory{ID: id, Content: content, Layer: memory.LayerBuffer, Importance: 0.8, Confidence: 0.9,
			Type: memory.TypeDecision, ModifiedAt: now}
		return hit{candidate: candidate{mem: &m}, rel: rel}
	}
	answer := msg("m", "Tomas: Yesterday I renewed the TLS certificate of photo-tagger by hand.", 0.90)
	loose := fact("f", "User upgraded photo-tagger from Python 3.11 to 3.12, CI image included.", 0.47)
	if res := r.rank([]hit{loose, answer}, Request{}); res[0].Memory.ID != "m" {
		t.Fatalf("ranked %v: a loose fact outranks the message that answers", ids(res))
	}
	close := fact("f2", "The TLS certificate of photo-tagger was renewed by hand on May 14.", 0.85)
	if res := r.rank([]hit{answer, close}, Request{}); res[0].Memory.ID != "f2" {
		t.Fatalf("ranked %v: a fact answering about as well keeps its lead over the message", ids(res))
	}
	a, b := msg("a", "Tomas: the renewal of photo-tagger's certificate is due.", 0.70), msg("b", "Sage: certificates of photo-tagger renew by hand now.", 0.65)
	res := r.rank([]hit{b, a}, Request{})
	if res[0].Memory.ID != "a" || res[0].Dampening != transcriptDampening || res[1].Dampening != transcriptDampening {
		t.Fatalf("messages: %v dampened %.2f, %.2f; want a first, both by %.1f", ids(res), res[0].Dampening, res[1].Dampening, transcriptDampening)
	}
	if d := factDamp(1); d != 1 {
		t.Fatalf("factDamp(1) = %v", d)
	}
}
