package query

import (
	"slices"

	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// screen applies the explicit-memory filters to an imported record, as the
// extractor does to learned ones: a secret in its content is redacted in
// place (tag redacted; the vector, made from the secret, is dropped and
// made again), a secret in its key drops the key, and a record that reads
// as an instruction aimed at the model is quarantined unless it already
// is. Nothing is refused: a record that passed validation is stored. It
// reports whether the record was redacted and whether this quarantined it.
func screen(f *filter.Filter, m *memory.Memory) (redacted, quarantined bool) {
	st := f.CheckStated(filter.Candidate{Key: m.Key, Content: m.Content})
	if st.Verdict == filter.VerdictRefuse {
		return false, false // not reached: validation bounds the content
	}
	if len(st.Redacted) > 0 {
		redacted = true
		if st.Content != m.Content {
			m.Content = st.Content
			m.Vector, m.EmbeddingModel = nil, ""
		}
		if st.Key == "" {
			m.Key = ""
		}
		if !slices.Contains(m.Tags, memory.RedactedTag) && len(m.Tags) < memory.MaxTags {
			m.Tags = append(m.Tags, memory.RedactedTag)
		}
	}
	if st.Quarantine != "" && m.Quarantine == "" {
		m.Quarantine = cutReason(st.Quarantine)
		quarantined = true
	}
	return redacted, quarantined
}

// cutReason bounds a quarantine reason to memory.MaxQuarantineChars bytes.
func cutReason(r string) string {
	if len(r) > memory.MaxQuarantineChars {
		return r[:memory.MaxQuarantineChars]
	}
	return r
}
