// Package cli holds the cobra commands of the recollect binary and of the
// per-module binaries; mains only call into it.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/config"
	"github.com/recollect-dev/recollect/pkg/telemetry"
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "dev"

// Main runs the recollect command line and returns the exit code.
func Main(args []string) int {
	root := NewRoot()
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "recollect:", explain(err))
		return 1
	}
	return 0
}

// ModuleMain runs a cmd/<module> binary: the run command with its target
// fixed.
func ModuleMain(target string, args []string) int {
	cmd := newRunCmd(target)
	cmd.Use = "recollect-" + target
	cmd.Short = "Run the Recollect " + target + " module"
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "recollect-%s: %v\n", target, err)
		return 1
	}
	return 0
}

// NewRoot builds the recollect command tree.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "recollect",
		Short:         "Long-term memory for AI agents",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.AddCommand(newRunCmd(""), newConfigCmd(), newHealthcheckCmd(), newUsageCmd(), newBenchCmd())
	root.AddCommand(newEvalCmd(), newRememberCmd(), newRecallCmd(), newHistoryCmd(), newContextCmd(), newResumeCmd(), newTopicsCmd(), newStatsCmd(),
		newForgetCmd(), newMCPCmd())
	root.AddCommand(newExportCmd(), newImportCmd(), newReindexCmd())
	root.AddCommand(newAuditCmd(), newConsolidateCmd(), newSoakCmd())
	root.AddCommand(newWebhooksCmd())
	return root
}

// bindConfig registers the app flags plus --config and returns a function
// that layers env and file values onto them and validates.
func bindConfig(fs *pflag.FlagSet, cfg *app.Config, target string) func() error {
	return bindConfigEnv(fs, cfg, target, os.LookupEnv)
}

// CheckRun parses and validates a `recollect run` command line (args after
// "run"; with target, a cmd/<target> binary's) with env as the environment,
// exactly as the run command does before it starts anything, and returns the
// configuration. Deployment files are checked with it.
func CheckRun(target string, args []string, env func(string) (string, bool)) (app.Config, error) {
	var cfg app.Config
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	load := bindConfigEnv(fs, &cfg, target, env)
	if err := fs.Parse(args); err != nil {
		return cfg, fmt.Errorf("parse run arguments %q: %w", args, err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("run takes no arguments (got %q)", fs.Args())
	}
	return cfg, load()
}

func bindConfigEnv(fs *pflag.FlagSet, cfg *app.Config, target string, env func(string) (string, bool)) func() error {
	var file string
	fs.StringVar(&file, "config", "", "YAML file of settings (flag names as keys); flags and RECOLLECT_* variables override it")
	cfg.RegisterFlags(fs, target)
	fs.SetNormalizeFunc(func(f *pflag.FlagSet, name string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
	})
	return func() error {
		if file == "" {
			file, _ = env(config.EnvName("config"))
		}
		if err := config.Apply(fs, file, env); err != nil {
			return err
		}
		return cfg.Validate()
	}
}

func newRunCmd(target string) *cobra.Command {
	var cfg app.Config
	cmd := &cobra.Command{
		Use:           "run",
		Short:         "Run modules (default: all of them in one process, with embedded NATS and local storage)",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	load := bindConfig(cmd.Flags(), &cfg, target)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := load(); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		stderr := cmd.ErrOrStderr()
		tty := isTerminal(stderr)
		log, err := telemetry.NewFormatLogger(stderr, cfg.LogLevel, cfg.LogFormat, tty)
		if err != nil {
			return err
		}
		service := "recollect"
		if target != "" {
			service += "-" + target
		} else if !slices.Contains(cfg.Targets, app.TargetAll) {
			// `run --target ingest` traces as recollect-ingest, like cmd/ingest.
			service += "-" + strings.Join(cfg.Targets, "+")
		}
		shutdown, err := telemetry.SetupTracing(ctx, service)
		if err != nil {
			return err
		}
		defer func() { _ = shutdown(context.WithoutCancel(ctx)) }()
		opts := []app.Option{app.WithQueryRoutes(mountMCP(log)), app.WithQueryRoutes(mountConsole(log, cfg))}
		if tty {
			authOn := cfg.Auth.Keys != "" || cfg.Auth.KeysFile != ""
			opts = append(opts, app.WithReady(func(url string) { writeBanner(stderr, cfg, url, authOn) }))
		}
		a, err := app.New(cfg, log, opts...)
		if err != nil {
			return err
		}
		return a.Run(ctx)
	}
	return cmd
}

func newConfigCmd() *cobra.Command {
	var cfg app.Config
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (flags, RECOLLECT_* variables, --config file), secrets redacted",
		Args:  cobra.NoArgs,
	}
	load := bindConfig(cmd.Flags(), &cfg, "")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := load(); err != nil {
			return err
		}
		settings := config.Effective(cmd.Flags())
		if asJSON {
			return writeJSON(cmd.OutOrStdout(), settings)
		}
		w := cmd.OutOrStdout()
		for _, s := range settings {
			if s.Name == "json" || s.Name == "help" {
				continue
			}
			fmt.Fprintf(w, "%-32s %-40s %s\n", s.Name, s.Value, s.Env)
		}
		return nil
	}
	return cmd
}
