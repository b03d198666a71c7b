package local

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestStatsAndMetrics(t *testing.T) {
	cfg := Config{CompactMinBytes: 8 << 10, CompactRatio: 1.5, ApproxMinRows: 30}
	s := openT(t, t.TempDir(), WithConfig(cfg))
	ctx := t.Context()
	var batch []memory.Memory
	for i := range 40 {
		batch = append(batch, testMemory("big", i, seededVector(uint64(i), 16)))
	}
	for i := range 3 {
		batch = append(batch, testMemory("small", i, seededVector(uint64(100+i), 16)))
	}
	if err := s.Upsert(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "small", batch[40].ID); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Memories != 42 || st.Tenants != 2 || st.Approximate != 1 || !st.Writable || st.LogBytes <= 0 || st.LiveBytes <= 0 {
		t.Fatalf("stats %+v, want 42 memories, 2 tenants, 1 approximate, writable, bytes counted", st)
	}
	if st.AppendedBytes != uint64(st.LogBytes-magicLen) {
		t.Fatalf("appended %d bytes, want the %d the log holds after its header", st.AppendedBytes, st.LogBytes-magicLen)
	}
	// Rewrite until a compaction has run.
	for round := 0; s.Stats().Compactions == 0; round++ {
		if round > 200 {
			t.Fatal("no compaction after 200 rewrites")
		}
		m := testMemory("big", 0, seededVector(uint64(round), 16))
		m.Content += strings.Repeat(" again", 20)
		if err := s.Upsert(ctx, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
		s.compactWG.Wait()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.Collector())
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		m := f.GetMetric()[0]
		got[f.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	want := map[string]float64{
		"recollect_store_local_memories": 42, "recollect_store_local_tenants": 2, "recollect_store_local_approximate_tenants": 1,
		"recollect_store_local_writable": 1, "recollect_store_local_compactions_total": 1, "recollect_store_local_compaction_failures_total": 0,
		"recollect_store_local_indexed_tenants": 0, "recollect_store_local_index_training_tenants": 0,
		"recollect_store_local_mapped_vector_bytes": 0, "recollect_store_local_vector_heap_fallbacks_total": 0,
	}
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", name, g, ok, v)
		}
	}
	for _, name := range []string{"recollect_store_local_log_bytes", "recollect_store_local_live_bytes"} {
		if got[name] <= 0 {
			t.Errorf("%s = %v, want positive", name, got[name])
		}
	}
	if len(got) != 12 {
		t.Errorf("%d metrics gathered, want 12: %v", len(got), got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Stats().Writable {
		t.Fatal("a closed store reports itself writable")
	}
}
