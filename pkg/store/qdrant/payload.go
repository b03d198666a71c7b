package qdrant

import (
	"fmt"
	"time"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Payload keys. Every memory field but the vector has one; created_at_us
// repeats created_at as an integer for range filters, superseded says
// whether invalid_at is set, as a boolean filters can test.
const (
	fTenant          = "tenant"
	fNamespace       = "namespace"
	fSubject         = "subject"
	fChannel         = "channel"
	fSession         = "session"
	fKey             = "key"
	fContent         = "content"
	fDomain          = "domain"
	fType            = "type"
	fKind            = "kind"
	fLayer           = "layer"
	fImportance      = "importance"
	fConfidence      = "confidence"
	fAccessCount     = "access_count"
	fRepetitionCount = "repetition_count"
	fSuccessCount    = "success_count"
	fTags            = "tags"
	fScope           = "scope"
	fEvidence        = "evidence"
	fSourceIDs       = "source_ids"
	fSource          = "source"
	fCreatedAt       = "created_at"
	fCreatedAtUS     = "created_at_us"
	fModifiedAt      = "modified_at"
	fLastAccessed    = "last_accessed"
	fValidFrom       = "valid_from"
	fInvalidAt       = "invalid_at"
	fValidUntil      = "valid_until"
	fArchived        = "archived"
	fEmbeddingModel  = "embedding_model"
	fSuperseded      = "superseded"
	fSupersededBy    = "superseded_by"
	fDerivedFrom     = "derived_from"
	fEpoch           = "epoch"
	// fQuarantined is the filter's flag, fQuarantine the reason.
	fQuarantined = "quarantined"
	fQuarantine  = "quarantine_reason"
	// fTimeDays are the days the memory is indexed under
	// (store.MemoryDays), for store.Filter.Days; derived, never read back.
	fTimeDays = "time_days"
)

// toPayload is m's payload: strings, numbers, booleans and string lists as
// typed values, times as RFC 3339 with nanoseconds (zero times left out).
func toPayload(m memory.Memory) map[string]*qdrant.Value {
	p := map[string]*qdrant.Value{
		fTenant:          qdrant.NewValueString(m.Tenant),
		fNamespace:       qdrant.NewValueString(m.Namespace),
		fSubject:         qdrant.NewValueString(m.Subject),
		fChannel:         qdrant.NewValueString(m.Channel),
		fSession:         qdrant.NewValueString(m.Session),
		fKey:             qdrant.NewValueString(m.Key),
		fContent:         qdrant.NewValueString(m.Content),
		fDomain:          qdrant.NewValueString(m.Domain),
		fType:            qdrant.NewValueString(string(m.Type)),
		fKind:            qdrant.NewValueString(string(m.Kind)),
		fLayer:           qdrant.NewValueString(string(m.Layer)),
		fImportance:      qdrant.NewValueDouble(m.Importance),
		fConfidence:      qdrant.NewValueDouble(m.Confidence),
		fAccessCount:     qdrant.NewValueInt(int64(m.AccessCount)),
		fRepetitionCount: qdrant.NewValueInt(int64(m.RepetitionCount)),
		fSuccessCount:    qdrant.NewValueInt(int64(m.SuccessCount)),
		fTags:            stringList(m.Tags),
		fScope:           stringList(m.Scope),
		fEvidence:        qdrant.NewValueString(m.Evidence),
		fSourceIDs:       stringList(m.SourceIDs),
		fSource:          qdrant.NewValueString(string(m.Source)),
		fCreatedAtUS:     qdrant.NewValueInt(m.CreatedAt.UnixMicro()),
		fArchived:        qdrant.NewValueBool(m.Archived),
		fEmbeddingModel:  qdrant.NewValueString(m.EmbeddingModel),
		fSuperseded:      qdrant.NewValueBool(m.Superseded()),
		fSupersededBy:    qdrant.NewValueString(m.SupersededBy),
		fDerivedFrom:     stringList(m.DerivedFrom),
		fEpoch:           qdrant.NewValueInt(m.Epoch),
		fQuarantined:     qdrant.NewValueBool(m.Quarantined()),
		fQuarantine:      qdrant.NewValueString(m.Quarantine),
	}
	days := store.MemoryDays(&m)
	dv := make([]*qdrant.Value, len(days))
	for i, d := range days {
		dv[i] = qdrant.NewValueInt(int64(d))
	}
	p[fTimeDays] = qdrant.NewValueFromList(dv...)
	putTime(p, fCreatedAt, m.CreatedAt)
	putTime(p, fModifiedAt, m.ModifiedAt)
	putTime(p, fLastAccessed, m.LastAccessed)
	putTime(p, fValidFrom, m.ValidFrom)
	if m.InvalidAt != nil {
		putTime(p, fInvalidAt, *m.InvalidAt)
	}
	if m.ValidUntil != nil {
		putTime(p, fValidUntil, *m.ValidUntil)
	}
	return p
}

func stringList(ss []string) *qdrant.Value {
	vs := make([]*qdrant.Value, len(ss))
	for i, s := range ss {
		vs[i] = qdrant.NewValueString(s)
	}
	return qdrant.NewValueFromList(vs...)
}

func putTime(p map[string]*qdrant.Value, key string, t time.Time) {
	if !t.IsZero() {
		p[key] = qdrant.NewValueString(t.UTC().Format(time.RFC3339Nano))
	}
}

// fromPayload rebuilds the memory with id from its payload and dense vector.
// Fields missing from the payload stay zero; a field of the wrong type is an
// error, as it means something else wrote the collection.
func fromPayload(id string, p map[string]*qdrant.Value, vec []float32) (memory.Memory, error) {
	d := decoder{p: p}
	m := memory.Memory{
		ID:              id,
		Tenant:          d.str(fTenant),
		Namespace:       d.str(fNamespace),
		Subject:         d.str(fSubject),
		Channel:         d.str(fChannel),
		Session:         d.str(fSession),
		Key:             d.str(fKey),
		Content:         d.str(fContent),
		Domain:          d.str(fDomain),
		Type:            memory.Type(d.str(fType)),
		Kind:            memory.Kind(d.str(fKind)),
		Layer:           memory.Layer(d.str(fLayer)),
		Importance:      d.num(fImportance),
		Confidence:      d.num(fConfidence),
		AccessCount:     d.int(fAccessCount),
		RepetitionCount: d.int(fRepetitionCount),
		SuccessCount:    d.int(fSuccessCount),
		Tags:            d.list(fTags),
		Scope:           d.list(fScope),
		Evidence:        d.str(fEvidence),
		SourceIDs:       d.list(fSourceIDs),
		Source:          memory.Source(d.str(fSource)),
		CreatedAt:       d.time(fCreatedAt),
		ModifiedAt:      d.time(fModifiedAt),
		LastAccessed:    d.time(fLastAccessed),
		ValidFrom:       d.time(fValidFrom),
		Archived:        d.bool(fArchived),
		EmbeddingModel:  d.str(fEmbeddingModel),
		SupersededBy:    d.str(fSupersededBy),
		DerivedFrom:     d.list(fDerivedFrom),
		Epoch:           d.int64(fEpoch),
		Quarantine:      d.str(fQuarantine),
	}
	if _, ok := p[fInvalidAt]; ok {
		t := d.time(fInvalidAt)
		m.InvalidAt = &t
	}
	if _, ok := p[fValidUntil]; ok {
		t := d.time(fValidUntil)
		m.ValidUntil = &t
	}
	if len(vec) > 0 {
		m.Vector = vec
	}
	if d.err != nil {
		return memory.Memory{}, fmt.Errorf("decode payload of point %s: %w", id, d.err)
	}
	return m, nil
}

// decoder reads typed payload values, keeping the first error.
type decoder struct {
	p   map[string]*qdrant.Value
	err error
}

func (d *decoder) fail(key, want string, v *qdrant.Value) {
	if d.err == nil {
		d.err = fmt.Errorf("field %s is %T, want %s", key, v.GetKind(), want)
	}
}

func (d *decoder) str(key string) string {
	v, ok := d.p[key]
	if !ok || isNull(v) {
		return ""
	}
	if s, ok := v.GetKind().(*qdrant.Value_StringValue); ok {
		return s.StringValue
	}
	d.fail(key, "a string", v)
	return ""
}

func (d *decoder) num(key string) float64 {
	v, ok := d.p[key]
	if !ok || isNull(v) {
		return 0
	}
	switch k := v.GetKind().(type) {
	case *qdrant.Value_DoubleValue:
		return k.DoubleValue
	case *qdrant.Value_IntegerValue:
		return float64(k.IntegerValue)
	}
	d.fail(key, "a number", v)
	return 0
}

func (d *decoder) int(key string) int { return int(d.int64(key)) }

func (d *decoder) int64(key string) int64 {
	v, ok := d.p[key]
	if !ok || isNull(v) {
		return 0
	}
	switch k := v.GetKind().(type) {
	case *qdrant.Value_IntegerValue:
		return k.IntegerValue
	case *qdrant.Value_DoubleValue:
		// JSON writers (the REST API) may have stored a whole double.
		if k.DoubleValue == float64(int64(k.DoubleValue)) {
			return int64(k.DoubleValue)
		}
	}
	d.fail(key, "an integer", v)
	return 0
}

func (d *decoder) bool(key string) bool {
	v, ok := d.p[key]
	if !ok || isNull(v) {
		return false
	}
	if b, ok := v.GetKind().(*qdrant.Value_BoolValue); ok {
		return b.BoolValue
	}
	d.fail(key, "a boolean", v)
	return false
}

// list returns nil for an empty list, as memories hold no empty slices.
func (d *decoder) list(key string) []string {
	v, ok := d.p[key]
	if !ok || isNull(v) {
		return nil
	}
	l, ok := v.GetKind().(*qdrant.Value_ListValue)
	if !ok {
		d.fail(key, "a list", v)
		return nil
	}
	vals := l.ListValue.GetValues()
	if len(vals) == 0 {
		return nil
	}
	out := make([]string, len(vals))
	for i, e := range vals {
		s, ok := e.GetKind().(*qdrant.Value_StringValue)
		if !ok {
			d.fail(key, "a list of strings", e)
			return nil
		}
		out[i] = s.StringValue
	}
	return out
}

func (d *decoder) time(key string) time.Time {
	s := d.str(key)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("field %s: %w", key, err)
	}
	return t
}

func isNull(v *qdrant.Value) bool {
	_, null := v.GetKind().(*qdrant.Value_NullValue)
	return v == nil || null
}
