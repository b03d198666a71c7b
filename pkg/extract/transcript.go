package extract

import (
	"strings"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// TranscriptTag marks session-transcript chunks; recall dampens them (0.6)
// and context assembly leaves them out. It must equal recall.TranscriptTag.
const TranscriptTag = "transcript"

// transcriptImportance is low: a transcript chunk is raw context, found by
// search, never a fact to keep in a prompt.
const transcriptImportance = 0.2

// transcripts indexes compacted messages as session-transcript chunks
// (001, Nebo's IndexSessionTranscript): blocks of TranscriptBlock messages
// as "role: content" lines, split on sentence boundaries (1600 characters,
// 320 overlap), each chunk an episodic memory tagged as transcript. Each
// message passes the filters first: tool and system messages, and
// messages holding a secret or instructions for the model, are left out
// (counted). A chunk is not filtered again as a whole, since its role
// prefixes are what injection detection looks for.
func (x *Extractor) transcripts(o *origin, msgs []memory.Message) []memory.FactMessage {
	var lines []string
	for _, m := range msgs {
		if !extractable(m.Role) {
			continue
		}
		c := strings.TrimSpace(memory.CleanText(m.Content))
		if c == "" {
			continue
		}
		if res := x.long.CheckExplicit(filter.Candidate{Content: c}); !res.Accepted {
			if res.Reason != filter.ReasonEmpty {
				x.m.rejected.WithLabelValues(string(res.Reason), producerTranscript).Inc()
			}
			continue
		}
		lines = append(lines, strings.ToLower(strings.TrimSpace(m.Role))+": "+c)
	}
	key := cutKey("transcript/" + memory.NormalizeKey(o.session))
	var out []memory.FactMessage
	for i := 0; i < len(lines); i += x.cfg.TranscriptBlock {
		block := strings.Join(lines[i:min(i+x.cfg.TranscriptBlock, len(lines))], "\n\n")
		for _, c := range x.chunker.Split(block) {
			text := strings.TrimSpace(c.Text)
			if text == "" {
				continue
			}
			h := memory.ContentHash(text)
			fm, ok := x.build(o, candidate{
				key: key, content: text, tags: []string{TranscriptTag}, domain: domains.Default,
				typ: memory.TypeEpisode, kind: memory.KindEpisodic, importance: transcriptImportance,
				confidence: memory.ConfidenceUnknown, rule: producerTranscript, producer: producerTranscript,
				id: memory.DeterministicID(o.tenant, o.namespace, o.subject, "transcript", o.session, string(h[:])),
			})
			if ok {
				out = append(out, fm)
				x.m.transcripts.Inc()
			}
		}
	}
	return out
}
