package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embed/cache"
	"github.com/recollect-dev/recollect/pkg/embed/coalesce"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/embed/openai"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/extract"
	"github.com/recollect-dev/recollect/pkg/ingest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/lock/redislock"
	"github.com/recollect-dev/recollect/pkg/modules"
	"github.com/recollect-dev/recollect/pkg/promptctx"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
	"github.com/recollect-dev/recollect/pkg/store/qdrant"
	"github.com/recollect-dev/recollect/pkg/store/remote"
	"github.com/recollect-dev/recollect/pkg/topiary"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/clickhouse"
	"github.com/recollect-dev/recollect/pkg/usage/jsonl"
	"github.com/recollect-dev/recollect/pkg/usage/metered"
)

// Module names. The public ones can be targets.
const (
	TargetAll          = "all"
	TargetIngest       = "ingest"
	TargetExtractor    = "extractor"
	TargetEmbedder     = "embedder"
	TargetConsolidator = "consolidator"
	TargetTopiary      = "topiary"
	TargetQuery        = "query"
	TargetStore        = "store"

	modBus   = "bus"
	modStore = "memory-store"
	modLocks = "locks"
	modUsage = "usage"
	modAudit = "audit-log"
	modModel = "embedding-model"
)

// PublicTargets lists the modules a process can run.
func PublicTargets() []string {
	return []string{TargetIngest, TargetExtractor, TargetEmbedder, TargetConsolidator, TargetTopiary, TargetQuery, TargetStore}
}

func (a *App) registerModules() {
	m := a.mods
	m.Register(modules.Module{Name: modBus, Init: a.initBus})
	storeDeps := []string{modBus}
	if a.cfg.storeBackend() == StoreQdrant {
		storeDeps = append(storeDeps, modModel) // a collection per embedding model
	}
	m.Register(modules.Module{Name: modStore, Deps: storeDeps, Init: a.initStore})
	m.Register(modules.Module{Name: modLocks, Init: a.initLocks})
	m.Register(modules.Module{Name: modUsage, Init: a.initUsage})
	m.Register(modules.Module{Name: modAudit, Init: a.initAudit})
	m.Register(modules.Module{Name: modModel, Deps: []string{modUsage}, Init: a.initModel})
	m.Register(modules.Module{Name: TargetIngest, Public: true, Deps: []string{modBus}, Init: a.initIngest})
	m.Register(modules.Module{Name: TargetExtractor, Public: true, Deps: []string{modBus, modLocks, modUsage}, Init: a.initExtractor})
	m.Register(modules.Module{Name: TargetEmbedder, Public: true, Deps: []string{modBus, modStore, modModel, modLocks, modUsage}, Init: a.initEmbedder})
	m.Register(modules.Module{Name: TargetConsolidator, Public: true, Deps: []string{modBus, modStore, modModel, modLocks, modUsage, modAudit}, Init: a.initConsolidator})
	m.Register(modules.Module{Name: TargetTopiary, Public: true, Deps: []string{modBus, modStore, modLocks, modUsage}, Init: a.initTopiary})
	m.Register(modules.Module{Name: TargetQuery, Public: true, Deps: []string{modBus, modStore, modModel, modUsage, modAudit}, Init: a.initQuery})
	m.Register(modules.Module{Name: TargetStore, Public: true, Deps: []string{modBus, modStore}, Init: a.initStoreServer})
	m.Register(modules.Module{Name: TargetAll, Public: true, Deps: []string{TargetIngest, TargetExtractor, TargetEmbedder, TargetConsolidator, TargetTopiary, TargetQuery}})
}

func (a *App) initBus(ctx context.Context) (modules.Service, error) {
	cfg := a.cfg.Bus
	if cfg.URL == "" {
		dir, err := a.cfg.dir()
		if err != nil {
			return nil, err
		}
		cfg.DataDir = dir
	}
	b, err := bus.Open(ctx, cfg, a.log)
	if err != nil {
		return nil, err
	}
	a.bus = b
	a.mbus = newMeteredBus(b, a.reg)
	return modules.Closer(b.Close), nil
}

func (a *App) initStore(ctx context.Context) (modules.Service, error) {
	switch backend := a.cfg.storeBackend(); backend {
	case StoreLocal:
		dir, err := a.cfg.dir("store")
		if err != nil {
			return nil, err
		}
		s, err := local.Open(dir, local.WithLogger(a.log), local.WithConfig(a.cfg.LocalStore))
		if err != nil {
			return nil, fmt.Errorf("open local store in %s: %w", dir, err)
		}
		if a.reg != nil {
			if err := a.reg.Register(s.Collector()); err != nil {
				_ = s.Close()
				return nil, fmt.Errorf("register local store metrics: %w", err)
			}
		}
		a.store = s
		return modules.Closer(s.Close), nil
	case StoreRemote:
		a.store = remote.NewClient(a.bus.Conn(), a.cfg.RemoteStore.Options()...)
		return modules.Closer(func() error { return nil }), nil
	case StoreQdrant:
		s, err := qdrant.Open(ctx, a.cfg.Qdrant, a.cfg.QdrantAddr, a.model.Model(), a.model.Dim(), a.log)
		if err != nil {
			return nil, err
		}
		a.store = s
		return modules.Closer(s.Close), nil
	default:
		return nil, fmt.Errorf("unknown store backend %q", backend)
	}
}

func (a *App) initStoreServer(ctx context.Context) (modules.Service, error) {
	if a.cfg.storeBackend() != StoreLocal {
		return nil, errors.New("the store target serves the local engine: run it with --store=local")
	}
	srv, err := remote.Serve(ctx, a.bus.Conn(), a.store, a.log, a.cfg.RemoteStore.Options()...)
	if err != nil {
		return nil, err
	}
	return modules.Funcs{StopFunc: srv.Stop}, nil
}

func (a *App) initLocks(ctx context.Context) (modules.Service, error) {
	if a.cfg.Redis.URL == "" {
		a.locks = memlock.New()
		return nil, nil
	}
	client, err := redislock.NewClient(a.cfg.Redis)
	if err != nil {
		return nil, err
	}
	// The client dials on use: a Redis that is down at start is waited
	// for (not ready) instead of failing the start.
	a.waitForBackend("redis", func(ctx context.Context) error { return client.Ping(ctx).Err() })
	a.locks = redislock.New(client)
	return modules.Closer(client.Close), nil
}

func (a *App) initUsage(ctx context.Context) (modules.Service, error) {
	var w usage.Writer
	var closeW func() error
	if a.cfg.ClickHouse.DSN != "" {
		ch, err := clickhouse.OpenLazy(a.cfg.ClickHouse)
		if err != nil {
			return nil, err
		}
		a.waitForBackend("clickhouse (usage log)", ch.Connect)
		w, closeW = ch, ch.Close
	} else {
		dir, err := a.cfg.dir()
		if err != nil {
			return nil, err
		}
		l, err := jsonl.Open(dir)
		if err != nil {
			return nil, err
		}
		w, closeW = l, l.Close
	}
	// GET /v1/usage reads what this process's usage module writes to.
	a.usageReader, _ = w.(usage.Reader)
	opts := append(a.cfg.Usage.Options(), usage.WithLogger(a.log))
	// The queue is spooled in the data dir, so usage recorded before a
	// kill -9 is written at the next start.
	spoolDir, err := a.cfg.dir("usage-spool")
	if err != nil {
		_ = closeW()
		return nil, err
	}
	sink, err := usage.NewSpooled(w, spoolDir, opts...)
	if err != nil {
		_ = closeW()
		return nil, err
	}
	prices, err := a.cfg.Usage.PriceTable()
	if err != nil {
		_ = sink.Close()
		_ = closeW()
		return nil, err
	}
	// Every record is counted here, before the buffer, so the model
	// metrics hold even while the backend is down and records are dropped.
	m, err := metered.New(sink, prices.WithFree(minilm.ModelName), a.reg)
	if err != nil {
		_ = sink.Close()
		_ = closeW()
		return nil, fmt.Errorf("register model usage metrics: %w", err)
	}
	a.usage = m
	a.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "recollect_usage_records_dropped_total",
			Help: "Model-usage records lost: the buffer was full (the usage backend down longer than it lasts), the spool could not take them (disk full), or a crash cut them in half."}, func() float64 { return float64(sink.Dropped()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "recollect_usage_records_written_total",
			Help: "Model-usage records written to the usage backend."}, func() float64 { return float64(sink.Written()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "recollect_usage_records_pending",
			Help: "Model-usage records buffered, not yet written."}, func() float64 { return float64(sink.Pending()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "recollect_usage_records_replayed_total",
			Help: "Model-usage records found in the spool at start (left by a crash or a backend down at shutdown) and queued again."}, func() float64 { return float64(sink.Replayed()) }),
	)
	return modules.Closer(func() error { return errors.Join(sink.Close(), closeW()) }), nil
}

// queryCoalesceMax bounds the texts of concurrent recalls merged into one
// built-in model call: 32 short queries take about as long as a few alone.
const queryCoalesceMax = 32

// initModel chooses the embedding model (a remote OpenAI-compatible one
// when --embed-url is set, else the built-in MiniLM) and puts the cache in
// front of it: in-process, or Redis when --redis-url is set.
func (a *App) initModel(ctx context.Context) (modules.Service, error) {
	var closeFn func() error
	var redisClient redis.UniversalClient
	if a.cfg.Redis.URL != "" && a.cfg.EmbedCache.Kind != "off" && a.cfg.EmbedCache.Kind != "memory" {
		c, err := redislock.NewClient(a.cfg.Redis)
		if err != nil {
			return nil, err
		}
		redisClient, closeFn = c, c.Close
	}
	backend, err := cache.NewBackend(a.cfg.EmbedCache, redisClient)
	if err != nil {
		return nil, err
	}
	wrap := func(m embed.Embedder) embed.Embedder {
		if backend == nil {
			return m
		}
		c := cache.New(m, backend, cache.WithLogger(a.log))
		a.caches = append(a.caches, c)
		return c
	}
	if a.cfg.Embed.Enabled() {
		remote, err := openai.New(a.cfg.Embed, a.usage, "embedder", openai.WithLogger(a.log), openai.WithTenant(usage.TenantFrom))
		if err != nil {
			return nil, err
		}
		if a.cfg.Embed.Dimensions == 0 {
			if _, err := remote.Probe(ctx); err != nil {
				return nil, fmt.Errorf("probe embedding model %s: %w", a.cfg.Embed.Model, err)
			}
		}
		a.model = wrap(remote)
		a.queryModel = wrap(remote.For("query"))
		// An import's embeddings are the embedder's work, counted as such.
		a.importModel = a.model
	} else {
		var opts []minilm.Option
		if a.cfg.EmbedIntegerProducts {
			opts = append(opts, minilm.IntegerProducts())
		}
		m, err := minilm.Load(opts...)
		if err != nil {
			return nil, fmt.Errorf("load embedding model: %w", err)
		}
		// Long content is chunked so that the model reads every chunk whole.
		a.cfg.Embedder.Chunk.Fits = m.Fits
		a.model = wrap(usageEmbedder{Embedder: m, tokens: m, component: "embedder", sink: a.usage, now: a.now})
		qm := m
		if a.cfg.QueryIntegerProducts && !a.cfg.EmbedIntegerProducts {
			if qm, err = minilm.Load(minilm.IntegerProducts()); err != nil {
				return nil, fmt.Errorf("load query embedding model: %w", err)
			}
		}
		// Concurrent recalls share model calls while the model is busy;
		// usage is still recorded per caller (outside the coalescer).
		a.queryModel = wrap(usageEmbedder{Embedder: coalesce.New(qm, queryCoalesceMax), tokens: qm, component: "query", sink: a.usage, now: a.now})
		// An import's embeddings are the embedder's work (exact products,
		// like every stored memory), counted under its component.
		a.importModel = a.model
	}
	a.registerCacheMetrics()
	if closeFn == nil {
		return nil, nil
	}
	return modules.Closer(closeFn), nil
}

func (a *App) registerCacheMetrics() {
	if len(a.caches) == 0 {
		return
	}
	sum := func(f func(*cache.Embedder) int64) func() float64 {
		return func() float64 {
			var n int64
			for _, c := range a.caches {
				n += f(c)
			}
			return float64(n)
		}
	}
	a.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "recollect_embed_cache_hits_total", Help: "Texts whose vector came from the embedding cache."}, sum((*cache.Embedder).Hits)),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "recollect_embed_cache_misses_total", Help: "Texts the embedding model had to compute."}, sum((*cache.Embedder).Misses)),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "recollect_embed_cache_backend_errors_total", Help: "Embedding cache backend failures (the model computed instead)."}, sum((*cache.Embedder).BackendErrors)),
	)
}

func (a *App) initIngest(ctx context.Context) (modules.Service, error) {
	in, err := ingest.New(a.cfg.Ingest, a.bus, a.reg, a.log, a.now)
	if err != nil {
		return nil, err
	}
	a.web.Handle("POST /v1/events", in)
	return nil, nil
}

// initExtractor builds the extractor: rule capture always, per-domain LLM
// extraction when --llm-url is set (level auto or full), sessions leased
// through Redis in a split deployment.
func (a *App) initExtractor(ctx context.Context) (modules.Service, error) {
	client, err := llm.New(a.cfg.LLM, a.usage, a.log)
	if err != nil {
		return nil, err
	}
	if client.Enabled() {
		a.log.Info("llm extraction on", "level", client.Level(), "model", client.Model(llm.TierExtract))
	}
	return extract.New(a.cfg.Extract, a.mbus, a.reg, a.log, a.now,
		extract.WithLLM(client), extract.WithDomains(a.domains), extract.WithLocker(a.locks))
}

// initEmbedder builds the embedder: insert-merge through the LLM when
// --llm-url is set, reindex leases through Redis in a split deployment.
func (a *App) initEmbedder(ctx context.Context) (modules.Service, error) {
	client, err := llm.New(a.cfg.LLM, a.usage, a.log)
	if err != nil {
		return nil, err
	}
	reindexes, err := embedder.OpenReindexStatuses(ctx, a.bus.JetStream(), a.now)
	if err != nil {
		return nil, err
	}
	return embedder.New(a.cfg.Embedder, a.store, a.mbus, a.model, a.reg, a.log, a.now,
		embedder.WithLLM(client), embedder.WithLocker(a.locks), embedder.WithReindexStatuses(reindexes))
}

// initConsolidator builds the consolidator: triage, gate, merge,
// reconcile, distillation and audit through the LLM at its level when
// --llm-url is set (heuristics otherwise), memories it makes embedded as
// the embedder embeds them.
func (a *App) initConsolidator(ctx context.Context) (modules.Service, error) {
	client, err := llm.New(a.cfg.LLM, a.usage, a.log)
	if err != nil {
		return nil, err
	}
	vz, err := embedder.NewVectorizer(a.model, a.cfg.Embedder)
	if err != nil {
		return nil, err
	}
	return consolidate.New(a.cfg.Consolidate, a.store, a.mbus, a.locks, a.reg, a.log, a.now,
		consolidate.WithLLM(client), consolidate.WithVectors(vz, a.model.Model()), consolidate.WithJournal(auditJournal{a.audit}))
}

// initTopiary builds the topiary module: topic names through the LLM
// (tier naming) when --llm-url is set, word names otherwise.
func (a *App) initTopiary(ctx context.Context) (modules.Service, error) {
	client, err := llm.New(a.cfg.LLM, a.usage, a.log)
	if err != nil {
		return nil, err
	}
	return topiary.New(a.cfg.Topiary, a.cfg.Topics, a.store, a.mbus, a.locks, a.reg, a.log, a.now, topiary.WithLLM(client))
}

func (a *App) initQuery(ctx context.Context) (modules.Service, error) {
	// Query expansion and rerank use the LLM when one is configured; off,
	// requests asking for them are answered without.
	chat, err := llm.New(a.cfg.LLM, a.usage, a.log)
	if err != nil {
		return nil, err
	}
	r, err := recall.New(a.cfg.Recall, a.store, a.queryModel, a.domains, a.now, recall.WithLLM(chat), recall.WithRegisterer(a.reg))
	if err != nil {
		return nil, err
	}
	r.SetLogger(a.log)
	trees, err := topiary.OpenTrees(ctx, a.bus.JetStream())
	if err != nil {
		return nil, err
	}
	q := query.New(r, a.store, a.bus, trees, a.reg, a.log, a.now)
	vz, err := embedder.NewVectorizer(a.importModel, a.cfg.Embedder)
	if err != nil {
		return nil, err
	}
	q.SetEmbedder(a.importModel, vz)
	q.SetImportRules(a.cfg.Ingest.MaxFutureSkew, a.domains.Known)
	spoolDir, err := a.cfg.dir("import-spool")
	if err != nil {
		return nil, err
	}
	if n, err := query.RemoveStaleImportSpools(spoolDir, a.now().Add(-time.Hour)); err != nil {
		a.log.Warn("removing stale import spools", "dir", spoolDir, "error", err)
	} else if n > 0 {
		a.log.Info("removed import spools left by an interrupted import", "dir", spoolDir, "files", n)
	}
	q.SetImportSpool(spoolDir, 0)
	q.SetAudit(a.audit)
	q.SetAuditWriter(a.audit)
	q.SetTriageMinAge(a.cfg.Consolidate.Rules.TriageMinAge)
	if a.usageReader != nil {
		q.SetUsage(a.usageReader)
	}
	reindexes, err := embedder.OpenReindexStatuses(ctx, a.bus.JetStream(), a.now)
	if err != nil {
		return nil, err
	}
	q.SetReindexStatuses(reindexes)
	eraser, err := a.newEraser(ctx)
	if err != nil {
		return nil, err
	}
	q.SetEraser(eraser)
	q.Routes(a.web.Handle)
	a.web.Handle("GET /v1/pipeline", http.HandlerFunc(a.pipeline))
	tok, err := promptctx.NewBPE()
	if err != nil {
		return nil, fmt.Errorf("load prompt tokenizer: %w", err)
	}
	// Resume's Recent section counts back in the consolidator's epochs,
	// and over-budget sections are summarised when an LLM is configured.
	epochs, err := consolidate.OpenHistory(ctx, a.bus.JetStream())
	if err != nil {
		return nil, err
	}
	asm, err := promptctx.New(a.cfg.PromptCtx, a.store, r, trees, a.domains, tok, a.now, promptctx.WithLogger(a.log), promptctx.WithLLM(chat),
		promptctx.WithEpochHistory(func(ctx context.Context, tenant string) ([]time.Time, error) {
			return consolidate.EpochStarts(ctx, epochs, tenant)
		}))
	if err != nil {
		return nil, err
	}
	asm.Routes(a.web.Handle, auth.Tenant)
	for _, mount := range a.queryRoutes {
		mount(a.web.Handle, a.web.URL())
	}
	stopWebhooks, err := a.initWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	// Learns with wait=true are answered from the embedder's stored events.
	unwatch, err := a.bus.Watch(bus.AllStored, q.OnStored)
	if err != nil {
		return nil, err
	}
	// Stopping waits for access touches in flight, before the store closes,
	// and stops purges running in the background (their receipts say
	// failed; asking again resumes them).
	return modules.Funcs{StopFunc: func(ctx context.Context) error {
		r.Wait()
		eraser.Close()
		return errors.Join(stopWebhooks(ctx), unwatch())
	}}, nil
}
