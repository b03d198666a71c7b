package eval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestReportOutput(t *testing.T) {
	tl := newTally()
	tl.add(4, Scores{Questions: 1, RecallAny5: 1, RecallAny10: 1, RecallAll10: 1, NDCG10: 1})
	tl.add(2, Scores{Questions: 1})
	s := tl.summary()
	clean := s
	bm := newTally()
	bm.add(4, Scores{Questions: 1, RecallAny10: 1})
	base := bm.summary()
	r := &Report{Data: "x.json", K: 10, Conversations: 1, Turns: 3, Memories: 3, Summary: s, WithoutAudited: &clean, BM25: &base, Notes: []string{"a note"}}

	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	out := table.String()
	for _, want := range []string{"2 temporal", "4 single-hop", "without audited", "plain BM25", "0.500", "note: a note"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "2 temporal") > strings.Index(out, "4 single-hop") {
		t.Errorf("categories not in order:\n%s", out)
	}

	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var flat map[string]any
	if err := json.Unmarshal(data, &flat); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"questions", "recall_any@5", "recall_any@10", "recall_all@10", "ndcg@10", "by_category", "p50_ms", "p99_ms", "memories", "without_audited", "bm25"} {
		if _, ok := flat[key]; !ok {
			t.Errorf("JSON lacks %q: %s", key, data)
		}
	}
	if _, ok := flat["audit_corrected"]; ok {
		t.Errorf("JSON has audit_corrected though none was computed: %s", data)
	}
}
