package snapshot

import (
	"fmt"
	"io"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// BernardModel is the model of Bernard's embeddings: all-MiniLM-L6-v2 from
// fastembed, 384 dimensions (000). Vectors of another width are dropped so
// the importer embeds the fact again.
const (
	BernardModel = "all-MiniLM-L6-v2"
	bernardDim   = 384
)

// bernardMemory is one entry of Bernard's memories.json (000, RAGMemory).
type bernardMemory struct {
	ID           string    `json:"id"`
	Fact         string    `json:"fact"`
	Embedding    []float32 `json:"embedding"`
	Source       string    `json:"source"`
	Domain       string    `json:"domain"`
	CreatedAt    string    `json:"createdAt"`
	AccessCount  int       `json:"accessCount"`
	LastAccessed string    `json:"lastAccessed"`
}

// BernardOptions shape the conversion.
type BernardOptions struct {
	Namespace string    // memory.DefaultNamespace when empty
	Now       time.Time // creation time of entries without a valid createdAt
}

// Bernard converts Bernard's memories.json, a JSON array of facts, into
// memory records. The mapping:
//
//   - id: a deterministic id from Bernard's id ("bernard", id), so importing
//     the same file again rewrites the same records; Bernard's id is kept as
//     the source id "bernard:<id>".
//   - fact → content (whitespace cleaned); domain → domain, missing or empty
//     → general, as Bernard's own loader does.
//   - type from the domain: user-preferences → preference, tool-usage →
//     workflow (commands and how things get done), anything else → fact;
//     kind follows the type.
//   - Bernard's facts were extracted by an LLM from conversations and have
//     survived its dedup and pruning: layer working, confidence inferred
//     (0.6), importance 0.5, seen once (repetition 1).
//   - source: compression → compaction, exit → exit, anything else → api.
//   - createdAt → created, modified and valid-from; accessCount and
//     lastAccessed carry over.
//   - embedding → vector with model all-MiniLM-L6-v2 when it has 384
//     dimensions; otherwise none, and the importer embeds the fact.
//
// Entries are not validated here beyond what the mapping needs; the import
// validates every record.
func Bernard(r io.Reader, opts BernardOptions) ([]memory.Memory, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read memories.json: %w", err)
	}
	var entries []bernardMemory
	if err := strictjson.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("read memories.json (a JSON array of facts): %w", err)
	}
	ns := opts.Namespace
	if ns == "" {
		ns = memory.DefaultNamespace
	}
	out := make([]memory.Memory, 0, len(entries))
	for i, e := range entries {
		if e.ID == "" {
			return nil, fmt.Errorf("memories.json entry %d has no id", i)
		}
		out = append(out, bernardRecord(e, ns, opts.Now))
	}
	return out, nil
}

func bernardRecord(e bernardMemory, ns string, now time.Time) memory.Memory {
	domain := e.Domain
	if domain == "" {
		domain = memory.DomainGeneral
	}
	typ := memory.TypeFact
	switch domain {
	case memory.DomainUserPreferences:
		typ = memory.TypePreference
	case memory.DomainToolUsage:
		typ = memory.TypeWorkflow
	}
	created := parseTime(e.CreatedAt, now)
	m := memory.Memory{
		ID:              memory.DeterministicID("bernard", e.ID),
		Namespace:       ns,
		Content:         memory.CleanText(e.Fact),
		Domain:          domain,
		Type:            typ,
		Kind:            typ.DefaultKind(),
		Layer:           memory.LayerWorking,
		Importance:      0.5,
		Confidence:      memory.ConfidenceInferred,
		AccessCount:     max(0, e.AccessCount),
		RepetitionCount: 1,
		SourceIDs:       []string{"bernard:" + e.ID},
		Source:          bernardSource(e.Source),
		CreatedAt:       created,
		ModifiedAt:      created,
		ValidFrom:       created,
		LastAccessed:    parseTime(e.LastAccessed, time.Time{}),
	}
	if len(e.Embedding) == bernardDim {
		m.Vector, m.EmbeddingModel = e.Embedding, BernardModel
	}
	return m
}

func bernardSource(s string) memory.Source {
	switch s {
	case "compression":
		return memory.SourceCompaction
	case "exit":
		return memory.SourceExit
	default:
		return memory.SourceAPI
	}
}

// parseTime reads an ISO 8601 time, or returns def.
func parseTime(s string, def time.Time) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return def.UTC()
	}
	return t.UTC()
}
