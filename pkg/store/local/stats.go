package local

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Stats is the local engine's state at a glance, for operators.
type Stats struct {
	Memories int // live memories, archived included
	Tenants  int // tenants holding at least one memory
	// Approximate counts the tenants large enough to be searched by the
	// int8 scan (at least ApproxMinRows memories).
	Approximate int
	// Indexed counts the tenants whose IVF index is ready; IndexTraining
	// those training one (a first index or a retrain) in the background.
	Indexed       int
	IndexTraining int
	// IndexTrainings counts the indexes trained since Open (a reopen that
	// finds its index file trains none).
	IndexTrainings uint64
	LogBytes       int64 // current log file, header included
	LiveBytes      int64 // encoded size of the live records
	// AppendedBytes counts the bytes written to the logs since Open, over
	// every log file (compaction starts a new one).
	AppendedBytes uint64
	Compactions   uint64
	// CompactionFailures counts compactions that stopped before replacing
	// the old files (the logs still hold everything).
	CompactionFailures uint64
	// Writable is false once a failed append or fsync stopped writes.
	Writable bool
	// MappedVectorBytes is what the vector cache maps (vecfile.go): the
	// float32 vectors of big tenants, off the Go heap. VectorHeapFallbacks
	// counts the chunks kept on the heap instead since Open (a full disk, a
	// refused mapping).
	MappedVectorBytes   int64
	VectorHeapFallbacks uint64
}

// Stats reports the store's state.
func (s *Store) Stats() Stats {
	s.writeMu.Lock()
	st := Stats{LogBytes: s.wal.size.Load(), LiveBytes: s.liveBytes, Writable: s.writable() == nil}
	s.writeMu.Unlock()
	st.Compactions, st.CompactionFailures = s.compactions.Load(), s.compactionFailures.Load()
	st.AppendedBytes = s.appended.Load()
	st.IndexTrainings = s.ivfTrainings.Load()
	st.MappedVectorBytes, st.VectorHeapFallbacks = s.vecCache.mapped.Load(), s.vecCache.fallbacks.Load()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range s.parts {
		p.mu.RLock()
		n := p.ids.len()
		if p.ivf != nil {
			st.Indexed++
		}
		if p.training {
			st.IndexTraining++
		}
		p.mu.RUnlock()
		if n == 0 {
			continue
		}
		st.Tenants++
		st.Memories += n
		if s.cfg.ApproxMinRows > 0 && n >= s.cfg.ApproxMinRows {
			st.Approximate++
		}
	}
	return st
}

// Collector exports Stats as Prometheus metrics, read at scrape time.
func (s *Store) Collector() prometheus.Collector {
	return &statsCollector{s: s}
}

type statsCollector struct{ s *Store }

var (
	descMemories = prometheus.NewDesc("recollect_store_local_memories", "Live memories in the local store, archived included.", nil, nil)
	descTenants  = prometheus.NewDesc("recollect_store_local_tenants", "Tenants with at least one memory in the local store.", nil, nil)
	descApprox   = prometheus.NewDesc("recollect_store_local_approximate_tenants",
		"Tenants large enough for the local store's int8 scan (at least --store-approx-min-rows memories).", nil, nil)
	descIndexed = prometheus.NewDesc("recollect_store_local_indexed_tenants",
		"Tenants whose IVF index is ready (at least --store-index-min-rows vectors).", nil, nil)
	descTraining = prometheus.NewDesc("recollect_store_local_index_training_tenants",
		"Tenants training an IVF index in the background.", nil, nil)
	descLogBytes  = prometheus.NewDesc("recollect_store_local_log_bytes", "Size of the local store's current log file.", nil, nil)
	descLiveBytes = prometheus.NewDesc("recollect_store_local_live_bytes", "Encoded size of the local store's live records.", nil, nil)
	descCompact   = prometheus.NewDesc("recollect_store_local_compactions_total", "Local store compactions completed.", nil, nil)
	descCompactKO = prometheus.NewDesc("recollect_store_local_compaction_failures_total",
		"Local store compactions that stopped before replacing the old files (nothing is lost; see the logs).", nil, nil)
	descWritable = prometheus.NewDesc("recollect_store_local_writable",
		"1 while the local store accepts writes; 0 after a failed append or fsync stopped them (restart to recover).", nil, nil)
	descMapped = prometheus.NewDesc("recollect_store_local_mapped_vector_bytes",
		"Bytes of big tenants' float32 vectors memory-mapped from the local store's vector cache files (off the Go heap).", nil, nil)
	descFallbacks = prometheus.NewDesc("recollect_store_local_vector_heap_fallbacks_total",
		"Vector chunks kept on the heap because the cache could not reserve or map them (a full disk; see the logs).", nil, nil)
)

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descMemories, descTenants, descApprox, descIndexed, descTraining, descLogBytes, descLiveBytes, descCompact, descCompactKO, descWritable, descMapped, descFallbacks} {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	writable := 0.0
	if st.Writable {
		writable = 1
	}
	ch <- prometheus.MustNewConstMetric(descMemories, prometheus.GaugeValue, float64(st.Memories))
	ch <- prometheus.MustNewConstMetric(descTenants, prometheus.GaugeValue, float64(st.Tenants))
	ch <- prometheus.MustNewConstMetric(descApprox, prometheus.GaugeValue, float64(st.Approximate))
	ch <- prometheus.MustNewConstMetric(descIndexed, prometheus.GaugeValue, float64(st.Indexed))
	ch <- prometheus.MustNewConstMetric(descTraining, prometheus.GaugeValue, float64(st.IndexTraining))
	ch <- prometheus.MustNewConstMetric(descLogBytes, prometheus.GaugeValue, float64(st.LogBytes))
	ch <- prometheus.MustNewConstMetric(descLiveBytes, prometheus.GaugeValue, float64(st.LiveBytes))
	ch <- prometheus.MustNewConstMetric(descCompact, prometheus.CounterValue, float64(st.Compactions))
	ch <- prometheus.MustNewConstMetric(descCompactKO, prometheus.CounterValue, float64(st.CompactionFailures))
	ch <- prometheus.MustNewConstMetric(descWritable, prometheus.GaugeValue, writable)
	ch <- prometheus.MustNewConstMetric(descMapped, prometheus.GaugeValue, float64(st.MappedVectorBytes))
	ch <- prometheus.MustNewConstMetric(descFallbacks, prometheus.CounterValue, float64(st.VectorHeapFallbacks))
}
