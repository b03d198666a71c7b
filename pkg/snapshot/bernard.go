package snapshot

import (
	"encoding/json"
	"errors"
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
// validates every record. Bernard reads the whole file; BernardEach
// streams it.
func Bernard(r io.Reader, opts BernardOptions) ([]memory.Memory, error) {
	var out []memory.Memory
	err := BernardEach(r, opts, func(m memory.Memory) error {
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BernardEach converts Bernard's memories.json as Bernard does, one entry
// at a time, calling fn with each record: memory holds one entry, not the
// file. It is as strict as a whole-file decode (no repeated keys, no
// unknown fields, nothing after the array), but fn may have seen the
// entries before a bad one.
func BernardEach(r io.Reader, opts BernardOptions, fn func(memory.Memory) error) error {
	ns := opts.Namespace
	if ns == "" {
		ns = memory.DefaultNamespace
	}
	const what = "read memories.json (a JSON array of facts)"
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", what, &memory.FieldError{Field: "body", Reason: "is empty"})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("%s: %w", what, &memory.FieldError{Field: "body", Reason: "must be a JSON array of facts"})
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%s: entry %d: %w", what, i, err)
		}
		var e bernardMemory
		if err := strictjson.Unmarshal(raw, &e); err != nil {
			var fe *memory.FieldError
			if errors.As(err, &fe) {
				err = &memory.FieldError{Field: fmt.Sprintf("[%d].%s", i, fe.Field), Reason: fe.Reason}
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		if e.ID == "" {
			return fmt.Errorf("memories.json entry %d has no id", i)
		}
		if err := fn(bernardRecord(e, ns, opts.Now)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", what, &memory.FieldError{Field: "body",
			Reason: fmt.Sprintf("has data after the JSON value at offset %d (one array of facts, not several)", dec.InputOffset())})
	}
	return nil
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
