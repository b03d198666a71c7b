package cli

import (
	"io"
	"log/slog"
	"net/http"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/mcpserver"
	"github.com/recollect-dev/recollect/pkg/telemetry"
)

func newMCPCmd() *cobra.Command {
	var (
		f        clientFlags
		logLevel string
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory tools over MCP on stdin/stdout, as a bridge to a running Recollect server",
		Long: `Serve the memory tools (memory_learn, memory_recall, memory_episode, memory_procedure, memory_stats,
memory_consolidate, memory_resume, memory_topic, memory_forget) over the Model Context Protocol on
stdin/stdout, calling the Recollect server at --url. Configure it in an MCP client as a command:

  {"mcpServers": {"recollect": {"command": "recollect", "args": ["mcp", "--tenant", "me"],
                                "env": {"RECOLLECT_API_KEY": "..."}}}}

Logs go to stderr. The query service serves the same tools over HTTP at /mcp.`,
		Args: cobra.NoArgs,
	}
	f.register(cmd.Flags())
	cmd.Flags().Lookup("timeout").Usage = "how long one API call of a tool may take"
	_ = cmd.Flags().MarkHidden("json") // tools answer JSON anyway
	cmd.Flags().StringVar(&logLevel, "log-level", "warn", "log level of the bridge (stderr)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnv(cmd.Flags()); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		// Each tool call gets its own deadline from --timeout; the session
		// itself lasts until stdin closes.
		c := client.New(f.url, client.WithAPIKey(f.apiKey), client.WithTenant(f.tenant), client.WithNamespace(f.namespace),
			client.WithUserAgent("recollect-mcp/"+Version), client.WithHTTPClient(&http.Client{Timeout: f.timeout}))
		s := mcpserver.New(c, mcpserver.WithVersion(Version), mcpserver.WithLogger(telemetry.NewLogger(cmd.ErrOrStderr(), logLevel)))
		// Answers still in flight when stdin closes are written before exit.
		return s.Run(ctx, mcpserver.Stdio(readCloser(cmd.InOrStdin()), writeCloser(cmd.OutOrStdout())))
	}
	return cmd
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{w}
}

// mountMCP serves the MCP tools over streamable HTTP at /mcp on the query
// service; they call this process's own API on loopback, so auth, limits and
// tenancy apply to them unchanged.
func mountMCP(log *slog.Logger) func(handle func(string, http.Handler), baseURL string) {
	return func(handle func(string, http.Handler), baseURL string) {
		handle("/mcp", mcpserver.Handler(client.New(baseURL), mcpserver.WithLogger(log)))
	}
}
