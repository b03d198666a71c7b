package qdrant

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

var testTime = time.Date(2025, 3, 14, 15, 9, 26, 535_123_456, time.UTC)

// fullMemory sets every field, with awkward values where they exist.
func fullMemory() memory.Memory {
	return storetest.FullMemory(memory.DeterministicID("qdrant-test", "full"), "acme", testTime, []float32{0.6, 0, 0.8, 0})
}

func TestPayloadRoundTrip(t *testing.T) {
	minimal := fullMemory()
	minimal.Subject, minimal.Channel, minimal.Session, minimal.Key, minimal.Evidence = "", "", "", "", ""
	minimal.Tags, minimal.Scope, minimal.SourceIDs = nil, nil, nil
	minimal.LastAccessed, minimal.ValidFrom, minimal.InvalidAt = time.Time{}, time.Time{}, nil
	minimal.Archived, minimal.EmbeddingModel, minimal.Vector = false, "", nil
	minimal.SupersededBy, minimal.DerivedFrom, minimal.Epoch = "", nil, 0
	local := fullMemory()
	local.CreatedAt = local.CreatedAt.In(time.FixedZone("X", 5*3600))
	for name, m := range map[string]memory.Memory{"full": fullMemory(), "minimal": minimal, "non-utc times": local} {
		t.Run(name, func(t *testing.T) {
			// Through the wire format, as the server would store it.
			pt := &qdrant.PointStruct{Id: qdrant.NewIDUUID(m.ID), Payload: toPayload(m)}
			raw, err := proto.Marshal(pt)
			if err != nil {
				t.Fatal(err)
			}
			var back qdrant.PointStruct
			if err := proto.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			got, err := fromPayload(back.GetId().GetUuid(), back.GetPayload(), m.Vector)
			if err != nil {
				t.Fatal(err)
			}
			want := m
			want.CreatedAt = want.CreatedAt.UTC()
			if !reflect.DeepEqual(got, want) {
				gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
				for i := range gv.NumField() {
					if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
						t.Errorf("%s = %#v, want %#v", gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
					}
				}
			}
		})
	}
}

// The payload's value types are what the indexes and filters expect.
func TestPayloadTypes(t *testing.T) {
	m := fullMemory()
	p := toPayload(m)
	if _, ok := p["vector"]; ok {
		t.Error("payload holds the vector")
	}
	kinds := map[string]string{}
	for k, v := range p {
		switch v.GetKind().(type) {
		case *qdrant.Value_StringValue:
			kinds[k] = "string"
		case *qdrant.Value_DoubleValue:
			kinds[k] = "double"
		case *qdrant.Value_IntegerValue:
			kinds[k] = "int"
		case *qdrant.Value_BoolValue:
			kinds[k] = "bool"
		case *qdrant.Value_ListValue:
			kinds[k] = "list"
		default:
			kinds[k] = "other"
		}
	}
	want := map[string]string{
		"tenant": "string", "namespace": "string", "subject": "string", "channel": "string", "session": "string",
		"key": "string", "content": "string", "domain": "string", "type": "string", "kind": "string",
		"layer": "string", "importance": "double", "confidence": "double", "access_count": "int",
		"repetition_count": "int", "success_count": "int", "tags": "list", "scope": "list",
		"evidence": "string", "source_ids": "list", "source": "string", "created_at": "string",
		"created_at_us": "int", "time_days": "list", "modified_at": "string", "last_accessed": "string", "valid_from": "string", "valid_until": "string",
		"invalid_at": "string", "archived": "bool", "embedding_model": "string",
		"superseded": "bool", "superseded_by": "string", "derived_from": "list", "epoch": "int",
		"quarantined": "bool", "quarantine_reason": "string",
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("payload kinds\n got %v\nwant %v", kinds, want)
	}
	if got := p["created_at"].GetStringValue(); got != "2025-03-14T15:09:26.535123456Z" {
		t.Errorf("created_at = %q, want RFC 3339 UTC with nanoseconds", got)
	}
	if got := p["created_at_us"].GetIntegerValue(); got != testTime.UnixMicro() {
		t.Errorf("created_at_us = %d, want %d", got, testTime.UnixMicro())
	}
	if got := p["time_days"].GetListValue().GetValues(); len(got) == 0 || got[0].GetIntegerValue() != int64(store.Day(testTime)) {
		t.Errorf("time_days = %v, want the event's day %d first", got, store.Day(testTime))
	}
	if got := p["tags"].GetListValue().GetValues(); len(got) != 2 || got[1].GetStringValue() != "editor" {
		t.Errorf("tags = %v", got)
	}
	if got := p["epoch"].GetIntegerValue(); got != m.Epoch {
		t.Errorf("epoch = %d, want %d exactly", got, m.Epoch)
	}
}

// superseded is what filters test, so it follows invalid_at, whatever
// superseded_by says.
func TestPayloadSuperseded(t *testing.T) {
	m := fullMemory()
	if !toPayload(m)["superseded"].GetBoolValue() {
		t.Error("a memory with invalid_at is not marked superseded")
	}
	m.SupersededBy = ""
	if !toPayload(m)["superseded"].GetBoolValue() {
		t.Error("a memory with invalid_at and no successor is not marked superseded")
	}
	m.InvalidAt, m.SupersededBy = nil, "stale-successor"
	if toPayload(m)["superseded"].GetBoolValue() {
		t.Error("a memory without invalid_at is marked superseded")
	}
}

func TestPayloadDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		field string
		value *qdrant.Value
	}{
		{"tenant", qdrant.NewValueInt(3)},
		{"importance", qdrant.NewValueString("high")},
		{"access_count", qdrant.NewValueDouble(1.5)},
		{"archived", qdrant.NewValueString("yes")},
		{"tags", qdrant.NewValueString("x")},
		{"tags", qdrant.NewValueFromList(qdrant.NewValueInt(1))},
		{"created_at", qdrant.NewValueString("yesterday")},
		{"superseded_by", qdrant.NewValueBool(true)},
		{"derived_from", qdrant.NewValueString("m1")},
		{"epoch", qdrant.NewValueDouble(2.5)},
	} {
		p := toPayload(fullMemory())
		p[tc.field] = tc.value
		if _, err := fromPayload("id", p, nil); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s = %v: err = %v, want one naming the field", tc.field, tc.value, err)
		}
	}
	// Written by a JSON client: whole doubles for counters, nulls, missing fields.
	p := toPayload(fullMemory())
	p["access_count"] = qdrant.NewValueDouble(3)
	p["epoch"] = qdrant.NewValueDouble(12)
	p["subject"] = qdrant.NewValueNull()
	delete(p, "evidence")
	m, err := fromPayload("id", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.AccessCount != 3 || m.Epoch != 12 || m.Subject != "" || m.Evidence != "" {
		t.Errorf("lenient decode: %+v", m)
	}
	// Written before the lifecycle fields existed.
	p = toPayload(fullMemory())
	for _, f := range []string{"superseded", "superseded_by", "derived_from", "epoch"} {
		delete(p, f)
	}
	if m, err := fromPayload("id", p, nil); err != nil || m.SupersededBy != "" || m.DerivedFrom != nil || m.Epoch != 0 {
		t.Errorf("decode without lifecycle fields: %+v, %v", m, err)
	}
}

func TestPoint(t *testing.T) {
	s := &Store{dim: 4}
	m := fullMemory()
	pt, err := s.point(m)
	if err != nil {
		t.Fatal(err)
	}
	if pt.GetId().GetUuid() != m.ID {
		t.Errorf("point id = %v, want %s", pt.GetId(), m.ID)
	}
	named := pt.GetVectors().GetVectors().GetVectors()
	dense := named["dense"].GetDense().GetData()
	if len(dense) != 4 || math.Abs(float64(dense[0])-0.6) > 1e-6 || math.Abs(float64(dense[2])-0.8) > 1e-6 {
		t.Errorf("dense = %v, want the unit vector (0.6 0 0.8 0)", dense)
	}
	lex := lexical.MemoryVector(m)
	sparse := named["bm25"].GetSparse()
	if lex.Len() == 0 || !slices.Equal(sparse.GetIndices(), lex.Indices) || !slices.Equal(sparse.GetValues(), lex.Values) {
		t.Errorf("bm25 = %v, want lexical.MemoryVector %v", sparse, lex)
	}
	// Scaled input is normalised; a memory without a vector gets none.
	m.Vector = []float32{3, 0, 4, 0}
	if pt, _ := s.point(m); !slices.Equal(pt.GetVectors().GetVectors().GetVectors()["dense"].GetDense().GetData(), dense) {
		t.Error("a scaled vector was not normalised")
	}
	m.Vector = nil
	if pt, err := s.point(m); err != nil || pt.GetVectors().GetVectors().GetVectors()["dense"] != nil {
		t.Errorf("lexical-only memory: %v, %v", pt, err)
	}
	stops := fullMemory()
	stops.Content, stops.Key, stops.Tags = "what is it that they were doing", "", nil
	if pt, err := s.point(stops); err != nil || pt.GetVectors().GetVectors().GetVectors()["bm25"] != nil {
		t.Errorf("a memory without terms gets no sparse vector: %v, %v", pt, err)
	}

	for _, tc := range []struct {
		name string
		edit func(m *memory.Memory)
	}{
		{"invalid memory", func(m *memory.Memory) { m.Layer = "attic" }},
		{"id not a uuid", func(m *memory.Memory) { m.ID = "memory-1" }},
		{"uppercase uuid", func(m *memory.Memory) { m.ID = strings.ToUpper(m.ID) }},
		{"wider vector", func(m *memory.Memory) { m.Vector = []float32{1, 0, 0, 0, 0} }},
		{"narrower vector", func(m *memory.Memory) { m.Vector = []float32{1, 0, 0} }},
		{"nan", func(m *memory.Memory) { m.Vector = []float32{1, float32(math.NaN()), 0, 0} }},
		{"inf", func(m *memory.Memory) { m.Vector = []float32{float32(math.Inf(1)), 0, 0, 0} }},
		{"zero vector", func(m *memory.Memory) { m.Vector = []float32{0, 0, 0, 0} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fullMemory()
			tc.edit(&m)
			if _, err := s.point(m); !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("err = %v, want memory.ErrInvalid", err)
			}
		})
	}
}

func TestCheckLayout(t *testing.T) {
	info := func(req *qdrant.CreateCollection) *qdrant.CollectionInfo {
		return &qdrant.CollectionInfo{Config: &qdrant.CollectionConfig{Params: &qdrant.CollectionParams{
			VectorsConfig: req.VectorsConfig, SparseVectorsConfig: req.SparseVectorsConfig,
		}}}
	}
	if err := checkLayout("c", 384, info(createRequest("c", 384))); err != nil {
		t.Fatalf("the layout this store creates fails its own check: %v", err)
	}
	if m := createRequest("c", 8).GetSparseVectorsConfig().GetMap()["bm25"].GetModifier(); m != qdrant.Modifier_Idf {
		t.Errorf("bm25 modifier = %v, want Idf", m)
	}
	noIDF := createRequest("c", 384)
	noIDF.SparseVectorsConfig = qdrant.NewSparseVectorsConfig(map[string]*qdrant.SparseVectorParams{"bm25": {}})
	dot := createRequest("c", 384)
	dot.VectorsConfig.GetParamsMap().GetMap()["dense"].Distance = qdrant.Distance_Dot
	unnamed := createRequest("c", 384)
	unnamed.VectorsConfig = qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: 384, Distance: qdrant.Distance_Cosine})
	for _, tc := range []struct {
		name string
		info *qdrant.CollectionInfo
		want string
	}{
		{"dimension", info(createRequest("c", 768)), "holds 768-dim vectors but the embedding model gives 384"},
		{"distance", info(dot), "want Cosine"},
		{"no idf", info(noIDF), "idf modifier"},
		{"unnamed vector", info(unnamed), `no named vector "dense"`},
		{"no sparse", info(&qdrant.CreateCollection{VectorsConfig: createRequest("c", 384).VectorsConfig}), `no sparse vector "bm25"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkLayout("c", 384, tc.info)
			if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrSchema saying %q", err, tc.want)
			}
		})
	}
}
