package mcpserver

import (
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/client"
)

// instructions tell the model what the tools are for.
const instructions = `Recollect is your long-term memory. Call memory_resume at the start of a session, memory_recall before
answering questions that may depend on earlier sessions, and memory_learn / memory_episode / memory_procedure
to keep what will matter later (preferences, decisions, constraints, outcomes, proven workflows). Writes are
stored asynchronously: a new memory is recallable a few seconds later.`

// options configure the server.
type options struct {
	log            *slog.Logger
	version        string
	stateless      bool
	sessionTimeout time.Duration
}

// Option configures New and Handler.
type Option func(*options)

// WithLogger logs the MCP sessions (default: nothing).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithVersion is the server version reported to clients.
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

// WithStateless serves HTTP without MCP sessions (default true): every
// request stands alone, so replicas behind a load balancer need no
// stickiness. Only Handler uses it.
func WithStateless(stateless bool) Option { return func(o *options) { o.stateless = stateless } }

// WithSessionTimeout closes stateful HTTP sessions idle for d (default 30
// minutes). Only Handler uses it.
func WithSessionTimeout(d time.Duration) Option { return func(o *options) { o.sessionTimeout = d } }

func newOptions(opts []Option) options {
	o := options{log: slog.New(slog.NewTextHandler(io.Discard, nil)), version: "dev", stateless: true, sessionTimeout: 30 * time.Minute}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// New builds the MCP server with every memory tool, calling the API
// through c. Run it on a transport (e.g. &mcp.StdioTransport{}) or serve it
// over HTTP with Handler.
func New(c *client.Client, opts ...Option) *mcp.Server {
	o := newOptions(opts)
	return newServer(c, o)
}

func newServer(c *client.Client, o options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "recollect", Title: "Recollect memory", Version: o.version},
		&mcp.ServerOptions{Instructions: instructions, Logger: o.log})
	t := &tools{client: c}
	t.register(s)
	return s
}
