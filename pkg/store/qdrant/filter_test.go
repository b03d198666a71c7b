package qdrant

import (
	"testing"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func TestToFilter(t *testing.T) {
	tenant := qdrant.NewMatchKeyword("tenant", "acme")
	notArchived := qdrant.NewMatchBool("archived", true)
	notSuperseded := qdrant.NewMatchBool("superseded", true)
	notQuarantined := qdrant.NewMatchBool("quarantined", true)
	after := time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)
	before := after.Add(time.Hour)
	f64 := func(t time.Time) *float64 { v := float64(t.UnixMicro()); return &v }
	for _, tc := range []struct {
		name string
		in   store.Filter
		want *qdrant.Filter
	}{
		{"zero: tenant, not archived, not superseded", store.Filter{}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant}, MustNot: []*qdrant.Condition{notArchived, notSuperseded, notQuarantined}}},
		{"include archived", store.Filter{IncludeArchived: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant}, MustNot: []*qdrant.Condition{notSuperseded, notQuarantined}}},
		{"include superseded", store.Filter{IncludeSuperseded: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant}, MustNot: []*qdrant.Condition{notArchived, notQuarantined}}},
		{"include both", store.Filter{IncludeArchived: true, IncludeSuperseded: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant}, MustNot: []*qdrant.Condition{notQuarantined}}},
		{"include quarantined", store.Filter{IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant}, MustNot: []*qdrant.Condition{notArchived, notSuperseded}}},
		{"include all three", store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant}}},
		{"namespaces", store.Filter{Namespaces: []string{"proj/a", "default"}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("namespace", "proj/a", "default")}}},
		{"subjects", store.Filter{Subjects: []string{"u1"}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("subject", "u1")}}},
		{"domains", store.Filter{Domains: []string{"tool-usage"}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("domain", "tool-usage")}}},
		{"types", store.Filter{Types: []memory.Type{memory.TypeFact, memory.TypePitfall}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("type", "fact", "pitfall")}}},
		{"kinds", store.Filter{Kinds: []memory.Kind{memory.KindEpisodic}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("kind", "episodic")}}},
		{"layers", store.Filter{Layers: []memory.Layer{memory.LayerCore, memory.LayerBuffer}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("layer", "core", "buffer")}}},
		{"tags", store.Filter{Tags: []string{"x", "y"}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("tags", "x", "y")}}},
		{"sessions", store.Filter{Sessions: []string{"s1"}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("session", "s1")}}},
		{"keys", store.Filter{Keys: []string{"deploy/target"}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchKeywords("key", "deploy/target")}}},
		{"created after", store.Filter{CreatedAfter: after, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewRange("created_at_us", &qdrant.Range{Gt: f64(after)})}}},
		{"days", store.Filter{Days: []int32{20160, 20161}, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewMatchInts("time_days", 20160, 20161)}}},
		{"created before", store.Filter{CreatedBefore: before, IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}, &qdrant.Filter{
			Must: []*qdrant.Condition{tenant, qdrant.NewRange("created_at_us", &qdrant.Range{Lt: f64(before)})}}},
		{"everything", store.Filter{
			Namespaces: []string{"n"}, Subjects: []string{"s"}, Domains: []string{"d"},
			Types: []memory.Type{memory.TypeEpisode}, Kinds: []memory.Kind{memory.KindSemantic},
			Layers: []memory.Layer{memory.LayerWorking}, Tags: []string{"t"}, Sessions: []string{"x"},
			Keys: []string{"k"}, CreatedAfter: after, CreatedBefore: before,
		}, &qdrant.Filter{
			Must: []*qdrant.Condition{
				tenant,
				qdrant.NewMatchKeywords("namespace", "n"),
				qdrant.NewMatchKeywords("subject", "s"),
				qdrant.NewMatchKeywords("domain", "d"),
				qdrant.NewMatchKeywords("type", "episode"),
				qdrant.NewMatchKeywords("kind", "semantic"),
				qdrant.NewMatchKeywords("layer", "working"),
				qdrant.NewMatchKeywords("tags", "t"),
				qdrant.NewMatchKeywords("session", "x"),
				qdrant.NewMatchKeywords("key", "k"),
				qdrant.NewRange("created_at_us", &qdrant.Range{Gt: f64(after), Lt: f64(before)}),
			},
			MustNot: []*qdrant.Condition{notArchived, notSuperseded, notQuarantined},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := toFilter("acme", tc.in)
			if !proto.Equal(got, tc.want) {
				t.Fatalf("filter\n got %s\nwant %s", protojson.Format(got), protojson.Format(tc.want))
			}
		})
	}
}

// Every filtered field has a payload index of the type its condition needs,
// and the tenant's is the tenant key.
func TestIndexesCoverFilters(t *testing.T) {
	want := map[string]qdrant.FieldType{
		"tenant": qdrant.FieldType_FieldTypeKeyword, "namespace": qdrant.FieldType_FieldTypeKeyword,
		"subject": qdrant.FieldType_FieldTypeKeyword, "domain": qdrant.FieldType_FieldTypeKeyword,
		"type": qdrant.FieldType_FieldTypeKeyword, "kind": qdrant.FieldType_FieldTypeKeyword,
		"layer": qdrant.FieldType_FieldTypeKeyword, "tags": qdrant.FieldType_FieldTypeKeyword,
		"session": qdrant.FieldType_FieldTypeKeyword, "key": qdrant.FieldType_FieldTypeKeyword,
		"archived": qdrant.FieldType_FieldTypeBool, "superseded": qdrant.FieldType_FieldTypeBool,
		"quarantined":   qdrant.FieldType_FieldTypeBool,
		"created_at_us": qdrant.FieldType_FieldTypeInteger, "created_at": qdrant.FieldType_FieldTypeDatetime,
		"time_days":  qdrant.FieldType_FieldTypeInteger,
		"valid_from": qdrant.FieldType_FieldTypeDatetime, "valid_until": qdrant.FieldType_FieldTypeDatetime,
		"invalid_at": qdrant.FieldType_FieldTypeDatetime,
	}
	got := map[string]qdrant.FieldType{}
	for _, ix := range indexes() {
		got[ix.field] = ix.typ
		if ix.field == "tenant" && !ix.params.GetKeywordIndexParams().GetIsTenant() {
			t.Error("tenant index is not the tenant key (is_tenant)")
		}
		if ix.schema.String() != map[qdrant.FieldType]string{
			qdrant.FieldType_FieldTypeKeyword: "Keyword", qdrant.FieldType_FieldTypeBool: "Bool",
			qdrant.FieldType_FieldTypeInteger: "Integer", qdrant.FieldType_FieldTypeDatetime: "Datetime",
		}[ix.typ] {
			t.Errorf("index %s: schema %s does not match field type %s", ix.field, ix.schema, ix.typ)
		}
	}
	if len(got) != len(want) {
		t.Errorf("indexes = %v, want %v", got, want)
	}
	for f, typ := range want {
		if got[f] != typ {
			t.Errorf("index on %s = %v, want %v", f, got[f], typ)
		}
	}
}
