// Package app wires Recollect's modules together: one place decides which
// backends a process uses and starts the modules its targets need.
package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	auditch "github.com/recollect-dev/recollect/pkg/auditlog/clickhouse"
	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/embed/cache"
	"github.com/recollect-dev/recollect/pkg/embed/openai"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/extract"
	"github.com/recollect-dev/recollect/pkg/ingest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock/redislock"
	"github.com/recollect-dev/recollect/pkg/promptctx"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
	"github.com/recollect-dev/recollect/pkg/store/qdrant"
	"github.com/recollect-dev/recollect/pkg/store/remote"
	"github.com/recollect-dev/recollect/pkg/telemetry"
	"github.com/recollect-dev/recollect/pkg/topiary"
	"github.com/recollect-dev/recollect/pkg/topics"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/clickhouse"
	"github.com/recollect-dev/recollect/pkg/web"
	"github.com/recollect-dev/recollect/pkg/webhook"
)

// Store backends.
const (
	StoreAuto   = "auto"
	StoreLocal  = "local"
	StoreRemote = "remote"
	StoreQdrant = "qdrant"
)

// Config is a process's whole configuration.
type Config struct {
	Targets   []string
	DataDir   string
	LogLevel  string
	LogFormat string
	Insecure  bool
	// EmbedIntegerProducts runs the built-in model with integer products
	// (faster, approximate: see minilm.IntegerProducts).
	EmbedIntegerProducts bool
	// QueryIntegerProducts embeds recall queries (not stored memories)
	// with the built-in model's integer products: the query is on every
	// recall's critical path, and its vector's error is bounded by the
	// golden cosines (docs/ARCHITECTURE.md, "Query embeddings").
	QueryIntegerProducts bool
	StoreBackend         string
	QdrantAddr           string

	Web         web.Config
	Auth        auth.Config
	Bus         bus.Config
	Redis       redislock.Config
	ClickHouse  clickhouse.Config
	Audit       auditch.Config
	Usage       usage.Config
	Ingest      ingest.Config
	Extract     extract.Config
	LLM         llm.Config
	Domains     domains.Config
	Embedder    embedder.Config
	Consolidate consolidate.Config
	Topiary     topiary.Config
	Recall      recall.Config
	Topics      topics.Options
	Embed       openai.Config
	EmbedCache  cache.Config
	LocalStore  local.Config
	RemoteStore remote.Config
	Qdrant      qdrant.Config
	PromptCtx   promptctx.Config
	Webhook     webhook.Config
}

// RegisterFlags adds every flag; with fixedTarget the --target flag is not
// offered (a cmd/<module> binary runs its own module).
func (c *Config) RegisterFlags(fs *pflag.FlagSet, fixedTarget string) {
	if fixedTarget == "" {
		fs.StringSliceVar(&c.Targets, "target", []string{TargetAll}, "modules to run: all, or a comma list of "+strings.Join(PublicTargets(), ", "))
	} else {
		c.Targets = []string{fixedTarget}
	}
	fs.StringVar(&c.DataDir, "data-dir", "./data", "directory for the embedded NATS store, the local memory store and the local usage and audit logs")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&c.LogFormat, "log-format", "auto", "log format on stderr: auto (text on a terminal, JSON otherwise), text, json")
	fs.BoolVar(&c.EmbedIntegerProducts, "embed-integer-products", false, "run the built-in model with 9-bit weights and integer products: about a third less CPU per query, vectors within cosine 0.9999 of the exact ones (mixable with them); off keeps the exact model")
	fs.BoolVar(&c.QueryIntegerProducts, "query-integer-products", true, "embed recall queries with the built-in model's integer products (stored memories keep --embed-integer-products' choice): a third less CPU on every recall, query vectors within cosine 0.9999 of the exact ones; false embeds queries exactly")
	fs.BoolVar(&c.Insecure, "insecure", false, "serve the API without API keys on a non-loopback listener or from a split ingest/query process")
	fs.StringVar(&c.StoreBackend, "store", StoreAuto, "memory store: auto (qdrant when --qdrant-addr is set, local in one process, else remote), local, remote (the store target of another process, over NATS), qdrant")
	fs.StringVar(&c.QdrantAddr, "qdrant-addr", "", "Qdrant gRPC address host:port for the distributed memory store")
	c.Web.RegisterFlags("", fs)
	c.Auth.RegisterFlags("", fs)
	c.Bus.RegisterFlags("", fs)
	c.Redis.RegisterFlags("", fs)
	c.ClickHouse.RegisterFlags("", fs)
	c.Audit.RegisterFlags("", fs)
	c.Usage.RegisterFlags("", fs)
	c.Ingest.RegisterFlags("", fs)
	c.Extract.RegisterFlags("", fs)
	c.LLM.RegisterFlags("", fs)
	c.Domains.RegisterFlags("", fs)
	c.Embedder.RegisterFlags("", fs)
	c.Consolidate.RegisterFlags("", fs)
	c.Topiary.RegisterFlags("", fs)
	c.Recall.RegisterFlags("", fs)
	c.Topics = topics.DefaultOptions()
	c.Topics.RegisterFlags("", fs)
	c.LocalStore = local.DefaultConfig()
	c.LocalStore.RegisterFlags("store-", fs)
	c.RemoteStore.RegisterFlags("", fs)
	c.Qdrant = qdrant.DefaultConfig()
	c.Qdrant.RegisterFlags("", fs)
	c.PromptCtx = promptctx.DefaultConfig()
	c.PromptCtx.RegisterFlags("", fs)
	c.Embed.RegisterFlags("", fs)
	c.EmbedCache.RegisterFlags("", fs)
	c.Webhook = webhook.DefaultConfig()
	c.Webhook.RegisterFlags("", fs)
}

// Validate checks every part and names the bad setting.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Targets) == 0 {
		errs = append(errs, errors.New("target: at least one module is required"))
	}
	for _, t := range c.Targets {
		if !slices.Contains(append(PublicTargets(), TargetAll), strings.TrimSpace(t)) {
			errs = append(errs, fmt.Errorf("target: unknown module %q (known: all, %s)", t, strings.Join(PublicTargets(), ", ")))
		}
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("data-dir must not be empty"))
	}
	if c.LogFormat != "" {
		if err := telemetry.CheckLogFormat(c.LogFormat); err != nil {
			errs = append(errs, err)
		}
	}
	switch c.StoreBackend {
	case StoreAuto, StoreLocal, StoreRemote:
	case StoreQdrant:
		if c.QdrantAddr == "" {
			errs = append(errs, errors.New("store=qdrant needs --qdrant-addr"))
		}
	default:
		errs = append(errs, fmt.Errorf("store must be auto, local, remote or qdrant (got %q)", c.StoreBackend))
	}
	for _, v := range []interface{ Validate() error }{&c.Web, &c.Auth, &c.Bus, &c.Redis, &c.ClickHouse, &c.Audit, &c.Usage, &c.Ingest,
		&c.Extract, &c.LLM, &c.Domains, &c.Embedder, &c.Consolidate, &c.Topiary, &c.Recall, &c.Topics, c.LocalStore, &c.RemoteStore, c.Qdrant, &c.PromptCtx, &c.Embed, &c.EmbedCache, &c.Webhook} {
		if err := v.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// singleProcess reports whether this process runs every module.
func (c *Config) singleProcess() bool { return slices.Contains(c.Targets, TargetAll) }

// storeBackend resolves "auto".
func (c *Config) storeBackend() string {
	if c.StoreBackend != StoreAuto {
		return c.StoreBackend
	}
	switch {
	case c.QdrantAddr != "":
		return StoreQdrant
	case c.Bus.URL == "" || c.singleProcess() || slices.Contains(c.Targets, TargetStore):
		return StoreLocal
	default:
		return StoreRemote
	}
}

func (c *Config) dir(parts ...string) (string, error) {
	p := filepath.Join(append([]string{c.DataDir}, parts...)...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", fmt.Errorf("create data directory %s: %w", p, err)
	}
	return p, nil
}
