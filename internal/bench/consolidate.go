package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// ConsolidateResult is what `recollect bench consolidate --json` prints.
type ConsolidateResult struct {
	// Memories is every memory of the tenant after the timed epochs,
	// archived and superseded ones included (what an epoch reads);
	// Active those neither archived nor superseded.
	Memories        int `json:"memories"`
	InitialMemories int `json:"initial_memories"`
	Active          int `json:"active_memories"`
	// Changed is how many memories are added before each timed epoch.
	Changed int `json:"changed"`
	Epochs  int `json:"epochs"`
	// P50Ms and P99Ms are the timed epochs' durations (Epoch, from the
	// lease to the announcement), QPS epochs per second.
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MeanMs float64 `json:"mean_ms"`
	MaxMs  float64 `json:"max_ms"`
	QPS    float64 `json:"qps"`
	// PerEpoch is each timed epoch: its time, what it did, its LLM calls.
	PerEpoch []ConsolidateEpoch `json:"per_epoch"`
	// LLM calls over the timed epochs: as the epochs count them, and as
	// the usage log received them (one record per HTTP attempt).
	LLM                 string         `json:"llm"` // none, scripted or the URL's host
	LLMLevel            string         `json:"llm_level"`
	ModelDelayMs        float64        `json:"model_delay_ms,omitempty"`
	LLMCalls            int            `json:"llm_calls"`
	LLMCallsMaxPerEpoch int            `json:"llm_calls_max_per_epoch"`
	UsageRecords        int            `json:"usage_records"`
	UsageByComponent    map[string]int `json:"usage_by_component,omitempty"`
	// Setup: the fill, and the untimed epochs run (without an LLM) until
	// one archives nothing, so the timed ones start from a consolidated
	// tenant.
	FillS        float64 `json:"fill_s"`
	WarmupEpochs int     `json:"warmup_epochs"`
	WarmupS      float64 `json:"warmup_s"`
	// ScrollMs is one Scroll of the whole tenant, ScrollMetaMs one without
	// the vectors, which is how every epoch starts: the floor under an
	// epoch that reads the tenant.
	ScrollMs     float64 `json:"scroll_ms"`
	ScrollMetaMs float64 `json:"scroll_meta_ms"`
	// RecordBytes is the store's mean encoded record (what each written
	// record adds to its log); Compactions the store compactions during
	// the timed epochs, which the written records set off.
	RecordBytes   float64 `json:"record_bytes"`
	Compactions   uint64  `json:"compactions"`
	RSSMB         float64 `json:"rss_mb"`      // peak resident set of the process (VmHWM)
	RSSEndMB      float64 `json:"rss_end_mb"`  // resident set after the epochs (VmRSS)
	LoadAvgBefore float64 `json:"load_before"` // 1-minute load average before the timed epochs
	LoadAvgAfter  float64 `json:"load_after"`
	Vectors       string  `json:"vectors"`
	Note          string  `json:"note"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
	CPUs          int     `json:"cpus"`
	// Machine is where it ran: CPU, cores, Go version and the load at the end.
	Machine Machine `json:"machine"`
}

// ConsolidateEpoch is one timed epoch.
type ConsolidateEpoch struct {
	Ms    float64                  `json:"ms"`
	Event memory.ConsolidatedEvent `json:"event"`
	// JournalOps are the operations the epoch wrote to the audit log, by
	// phase; JournalBytes their JSON without vectors.
	JournalOps      int            `json:"journal_ops"`
	JournalOpsPhase map[string]int `json:"journal_ops_by_phase"`
	JournalBytes    int64          `json:"journal_bytes"`
	// WrittenRecords are the records the epoch wrote to the store;
	// LogBytes what the store appended to its log for them (a payload
	// update logs the memory without its vector).
	WrittenRecords   int            `json:"written_records"`
	LogBytes         uint64         `json:"log_bytes"`
	UsageRecords     int            `json:"usage_records"`
	UsageByComponent map[string]int `json:"usage_by_component,omitempty"`
	// QueuedPairs are the merge, reconcile and review pairs left in the
	// tenant's queue for a later epoch's LLM budget.
	QueuedPairs int `json:"queued_pairs"`
}

const consolidateVectors = "synthetic: random unit vectors around 256 random centroids (cosines 0.5–0.9 within one), " +
	"one in five new memories a near duplicate (cosine ≈ 0.97) of an existing one; not embedded, since the built-in " +
	"model embeds about 600 sentences/s (minutes for 100k)"

const consolidateNote = "local store and embedded NATS in a temp dir, memlock lease, injected clock advanced by --interval " +
	"per epoch; the tenant is a fifth explicit (source api, never archived by a policy), the rest inferred; 80% working, " +
	"15% buffer, 5% core; 30% keyed from 200 keys per subject over 50 subjects and 6 namespaces; new memories 70% buffer; " +
	"every operation JSON-encoded for the audit log (counted, not written); the default rules unless flags change them; " +
	"without an LLM the epoch looks up no neighbours in the store (buffer dedup compares within each namespace and subject in memory; merge and reconcile need the LLM)"

// ConsolidateOptions sizes a consolidation benchmark.
type ConsolidateOptions struct {
	Memories, Changed, Epochs int
	// Interval is how far the clock moves per epoch (the schedule).
	Interval time.Duration
	// MaxWarmup bounds the untimed epochs.
	MaxWarmup int
	DataDir   string
	Rules     consolidate.Rules
	LLM       llm.Config
	// Scripted runs the LLM phases against an in-process scripted model
	// answering after ModelDelay.
	Scripted   bool
	ModelDelay time.Duration
	CPUProfile string // profile of the timed epochs only
}

// benchClock is the epochs' injected clock.
type benchClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *benchClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *benchClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// BenchConsolidate fills a tenant, consolidates it, and times epochs over
// it, each after adding opt.Changed memories.
func BenchConsolidate(ctx context.Context, opt ConsolidateOptions) (ConsolidateResult, error) {
	if opt.Memories < 1 || opt.Changed < 0 || opt.Epochs < 1 || opt.Interval <= 0 || opt.MaxWarmup < 1 || opt.ModelDelay < 0 {
		return ConsolidateResult{}, errNeed("memories, epochs and max-warmup >= 1, changed >= 0, interval > 0, model-delay >= 0")
	}
	if opt.Scripted && opt.LLM.URL != "" {
		return ConsolidateResult{}, errors.New("give either --llm-url or --scripted-llm, not both")
	}
	dir, cleanup, err := benchDataDir(opt.DataDir)
	if err != nil {
		return ConsolidateResult{}, err
	}
	defer cleanup()
	log := slog.New(slog.DiscardHandler)
	b, err := bus.Open(ctx, bus.Config{DataDir: filepath.Join(dir, "bus")}, log)
	if err != nil {
		return ConsolidateResult{}, err
	}
	defer b.Close()
	st, err := local.Open(filepath.Join(dir, "store"), local.WithLogger(log))
	if err != nil {
		return ConsolidateResult{}, fmt.Errorf("open store: %w", err)
	}
	defer st.Close()

	clock := &benchClock{t: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)}
	c := newConsolidateCorpus(clock.now())
	res := ConsolidateResult{InitialMemories: opt.Memories, Changed: opt.Changed, Epochs: opt.Epochs, LLM: "none",
		LLMLevel: string(llm.LevelOff), Vectors: consolidateVectors, Note: consolidateNote,
		GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}
	begin := time.Now()
	if err := upsertGenerated(ctx, st, opt.Memories, c.existing, phaseProgress(ctx, opt.Memories, "filling the tenant", "memories")); err != nil {
		return res, err
	}
	res.FillS = time.Since(begin).Seconds()

	cfg := consolidate.Config{LeaseTTL: time.Minute, Rules: opt.Rules}
	warm, err := startConsolidator(ctx, cfg, st, b, clock, log)
	if err != nil {
		return res, err
	}
	begin = time.Now()
	warmBar := phaseProgress(ctx, -1, "untimed epochs", "epochs")
	for res.WarmupEpochs < opt.MaxWarmup {
		clock.add(opt.Interval)
		res.WarmupEpochs++
		ev, err := warm.Epoch(ctx, consolidateTenant, fmt.Sprintf("warmup-%d", res.WarmupEpochs), nil)
		if err != nil {
			_ = warm.Stop(ctx)
			return res, fmt.Errorf("untimed epoch %d: %w", res.WarmupEpochs, err)
		}
		warmBar.Add(1)
		if ev.Archived == 0 {
			break
		}
	}
	warmBar.End()
	res.WarmupS = time.Since(begin).Seconds()
	if err := warm.Stop(ctx); err != nil {
		return res, err
	}

	counter := &usageCounter{}
	var opts []consolidate.Option
	journal := &countingJournal{}
	opts = append(opts, consolidate.WithJournal(journal))
	llmOpts, closeLLM, err := benchConsolidateLLM(opt, counter, log, &res)
	if err != nil {
		return res, err
	}
	defer closeLLM()
	opts = append(opts, llmOpts...)
	written := &countingStore{metaStore: st}
	cons, err := startConsolidator(ctx, cfg, written, b, clock, log, opts...)
	if err != nil {
		return res, err
	}
	defer func() { _ = cons.Stop(context.WithoutCancel(ctx)) }()

	res.LoadAvgBefore = loadAverage()
	compactions := st.Stats().Compactions
	if opt.CPUProfile != "" {
		stop, err := StartCPUProfile(opt.CPUProfile)
		if err != nil {
			return res, err
		}
		defer stop()
	}
	var took []time.Duration
	var total time.Duration
	bar := phaseProgress(ctx, opt.Epochs, "timed epochs", "epochs")
	defer bar.End()
	for e := range opt.Epochs {
		last := clock.now() // the previous epoch's start
		step := opt.Interval / time.Duration(2*max(opt.Changed, 1))
		if err := upsertGenerated(ctx, st, opt.Changed, func(j int) memory.Memory {
			return c.changed(opt.Memories, e, j, last.Add(time.Duration(j+1)*step))
		}, noBar{}); err != nil {
			return res, err
		}
		clock.add(opt.Interval)
		_, _ = counter.take()
		journal.take()
		written.take()
		appended := st.Stats().AppendedBytes
		begin := time.Now()
		ev, err := cons.Epoch(ctx, consolidateTenant, fmt.Sprintf("bench-%d", e+1), nil)
		d := time.Since(begin)
		if err != nil {
			return res, fmt.Errorf("timed epoch %d: %w", e+1, err)
		}
		took, total = append(took, d), total+d
		pe := ConsolidateEpoch{Ms: ms(d), Event: ev}
		pe.JournalOps, pe.JournalOpsPhase, pe.JournalBytes = journal.take()
		pe.UsageRecords, pe.UsageByComponent = counter.take()
		pe.WrittenRecords = written.take()
		pe.LogBytes = st.Stats().AppendedBytes - appended
		if pe.QueuedPairs, err = cons.QueueDepth(ctx, consolidateTenant); err != nil {
			return res, fmt.Errorf("timed epoch %d: %w", e+1, err)
		}
		res.PerEpoch = append(res.PerEpoch, pe)
		res.LLMCalls += ev.LLMCalls
		res.LLMCallsMaxPerEpoch = max(res.LLMCallsMaxPerEpoch, ev.LLMCalls)
		res.UsageRecords += pe.UsageRecords
		for k, n := range pe.UsageByComponent {
			if res.UsageByComponent == nil {
				res.UsageByComponent = map[string]int{}
			}
			res.UsageByComponent[k] += n
		}
		bar.Add(1)
	}
	res.LoadAvgAfter = loadAverage()
	stats := st.Stats()
	res.Compactions = stats.Compactions - compactions
	if stats.Memories > 0 {
		res.RecordBytes = float64(stats.LiveBytes) / float64(stats.Memories)
	}
	sortDurations(took)
	res.P50Ms, res.P99Ms, res.MaxMs = percentile(took, 50), percentile(took, 99), ms(took[len(took)-1])
	res.MeanMs = ms(total) / float64(len(took))
	res.QPS = float64(len(took)) / total.Seconds()
	return res, tenantFigures(ctx, st, &res)
}

// tenantFigures counts the tenant and times one full scroll of it.
func tenantFigures(ctx context.Context, st metaStore, res *ConsolidateResult) error {
	all := store.Filter{IncludeArchived: true, IncludeSuperseded: true}
	begin := time.Now()
	n := 0
	if err := st.Scroll(ctx, consolidateTenant, all, func(memory.Memory) error { n++; return nil }); err != nil {
		return fmt.Errorf("scroll the tenant: %w", err)
	}
	res.ScrollMs, res.Memories = ms(time.Since(begin)), n
	begin = time.Now()
	if err := st.ScrollMeta(ctx, consolidateTenant, all, func(memory.Memory) error { return nil }); err != nil {
		return fmt.Errorf("scroll the tenant without vectors: %w", err)
	}
	res.ScrollMetaMs = ms(time.Since(begin))
	active, err := st.Count(ctx, consolidateTenant, store.Filter{})
	if err != nil {
		return fmt.Errorf("count active memories: %w", err)
	}
	res.Active = active
	if res.RSSMB, err = peakRSSMB(); err != nil {
		return err
	}
	res.RSSEndMB, _ = procStatusMB("VmRSS:")
	return nil
}

// benchConsolidateLLM builds the LLM options of the timed consolidator:
// none without --llm-url or --scripted-llm; else a client whose usage log
// is counter, and the built-in model to embed the memories epochs make.
func benchConsolidateLLM(opt ConsolidateOptions, counter *usageCounter, log *slog.Logger, res *ConsolidateResult) ([]consolidate.Option, func(), error) {
	cfg := opt.LLM
	switch {
	case opt.Scripted:
		model, err := startScriptedLLM(opt.ModelDelay, ConsolidationAnswer)
		if err != nil {
			return nil, nil, err
		}
		cfg.URL, cfg.APIKey = model.url(), ""
		res.LLM, res.ModelDelayMs = "scripted", ms(opt.ModelDelay)
		built, closeModel, err := consolidateLLMOptions(cfg, counter, log, res)
		if err != nil {
			model.close()
			return nil, nil, err
		}
		return built, func() { closeModel(); model.close() }, nil
	case cfg.URL != "":
		res.LLM = cfg.URL
		return consolidateLLMOptions(cfg, counter, log, res)
	}
	return nil, func() {}, nil
}

func consolidateLLMOptions(cfg llm.Config, counter *usageCounter, log *slog.Logger, res *ConsolidateResult) ([]consolidate.Option, func(), error) {
	client, err := llm.New(cfg, counter, log)
	if err != nil {
		return nil, nil, err
	}
	res.LLMLevel = string(client.Level())
	m, err := minilm.Load()
	if err != nil {
		return nil, nil, err
	}
	var ecfg embedder.Config
	ecfg.RegisterFlags("", pflag.NewFlagSet("embedder", pflag.ContinueOnError))
	vz, err := embedder.NewVectorizer(m, ecfg)
	if err != nil {
		return nil, nil, err
	}
	return []consolidate.Option{consolidate.WithLLM(client), consolidate.WithVectors(vz, m.Model())}, func() {}, nil
}

func startConsolidator(ctx context.Context, cfg consolidate.Config, st store.Store, b *bus.Bus, clock *benchClock, log *slog.Logger,
	opts ...consolidate.Option) (*consolidate.Consolidator, error) {
	c, err := consolidate.New(cfg, st, b, memlock.New(), prometheus.NewRegistry(), log, clock.now, opts...)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// upsertGenerated writes memories gen(0..n-1) in batches, generating each
// batch just before writing it, and counts them on bar, which it ends.
func upsertGenerated(ctx context.Context, st store.Store, n int, gen func(int) memory.Memory, bar Bar) error {
	defer bar.End()
	batch := make([]memory.Memory, 0, storeUpsertBatch)
	for start := 0; start < n; start += storeUpsertBatch {
		batch = batch[:0]
		for i := start; i < min(n, start+storeUpsertBatch); i++ {
			batch = append(batch, gen(i))
		}
		if err := st.Upsert(ctx, batch); err != nil {
			return fmt.Errorf("upsert memories %d..%d: %w", start, start+len(batch)-1, err)
		}
		bar.Add(len(batch))
	}
	return nil
}

// benchDataDir returns the directory to work in and what removes it: a
// temporary one by default; a given one must be empty or not exist yet.
func benchDataDir(dir string) (string, func(), error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "recollect-bench-consolidate-")
		if err != nil {
			return "", nil, err
		}
		return d, func() { _ = os.RemoveAll(d) }, nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, err
		}
	case err != nil:
		return "", nil, fmt.Errorf("read data-dir %s: %w", dir, err)
	case len(entries) > 0:
		return "", nil, fmt.Errorf("data-dir %s is not empty: the benchmark needs a fresh store", dir)
	}
	return dir, func() {}, nil
}
