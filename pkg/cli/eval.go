package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/eval"
	"github.com/recollect-dev/recollect/pkg/telemetry"
)

func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure retrieval quality on public benchmarks (no LLM)",
	}
	cmd.AddCommand(newEvalLoCoMoCmd(), newEvalDevChatCmd())
	return cmd
}

// evalTargets are the modules an in-process evaluation needs. Consolidation
// and topic trees are left out: they would change or slow down what is
// measured while it is measured.
var evalTargets = []string{app.TargetIngest, app.TargetExtractor, app.TargetEmbedder, app.TargetQuery}

func newEvalLoCoMoCmd() *cobra.Command {
	var (
		ecfg   eval.Config
		acfg   app.Config
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "locomo",
		Short: "Store each LoCoMo conversation turn by turn, ask its questions through recall, and score the evidence turns recalled",
		Long: `Store each LoCoMo conversation turn by turn (one tenant per conversation), ask every
non-adversarial question through POST /v1/recall and score whether its evidence turns come back:
recall_any@5, recall_any@10, recall_all@10 and nDCG@10 as LongMemEval defines them, overall and per
category, with and without the questions a public audit flags.

Without --url it starts ingest, extractor, embedder and query in this process on a temporary data
directory; the server flags below then apply (recall-per-domain defaults to --k so that one domain
can fill the k results).`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	ecfg.RegisterFlags("", fs)
	fs.BoolVar(&asJSON, "json", false, "print one JSON object")
	acfg.RegisterFlags(fs, app.TargetAll)
	setDefault(fs, "http-addr", "127.0.0.1:0", "")
	setDefault(fs, "data-dir", "", "data directory of the in-process server (default: a temporary directory, removed afterwards)")
	setDefault(fs, "consolidate-interval", "0s", "")
	setDefault(fs, "log-level", "error", "")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnv(fs); err != nil {
			return err
		}
		if err := ecfg.Validate(); err != nil {
			return err
		}
		// Warnings only (skipped or missing turns): progress is a bar per
		// stage on a terminal, and nothing in pipes and CI.
		warnings, err := telemetry.NewFormatLogger(cmd.ErrOrStderr(), "warn", acfg.LogFormat, isTerminal(cmd.ErrOrStderr()))
		if err != nil {
			return err
		}
		bars := &stageBars{w: cmd.ErrOrStderr(), names: evalStageNames}
		ecfg.Progress = bars.report
		ctx := cmd.Context()
		var rep *eval.Report
		if ecfg.URL != "" {
			rep, err = eval.LoCoMo(ctx, ecfg, ecfg.URL, warnings)
		} else {
			if !fs.Changed("recall-per-domain") {
				acfg.Recall.PerDomain = ecfg.K
			}
			rep, err = evalInProcess(ctx, ecfg, acfg, warnings)
		}
		bars.end()
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(cmd.OutOrStdout(), rep)
		}
		return rep.WriteTable(cmd.OutOrStdout())
	}
	return cmd
}

// evalStageNames label the bars of an evaluation's stages.
var evalStageNames = map[string][2]string{
	eval.StageIngest:    {"posting turns", "turns"},
	eval.StageStored:    {"waiting for stored turns", "turns"},
	eval.StageQuestions: {"asking questions", "questions"},
}

// evalInProcess runs the evaluation against a Recollect started in this
// process.
func evalInProcess(ctx context.Context, ecfg eval.Config, acfg app.Config, progress *slog.Logger) (*eval.Report, error) {
	var rep *eval.Report
	err := withEvalServer(ctx, acfg, func(url string) (err error) {
		rep, err = eval.LoCoMo(ctx, ecfg, url, progress)
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.Settings = evalSettings(acfg)
	rep.Settings["captions"] = ecfg.Captions
	return rep, nil
}

// evalSettings are the server settings that shape what an evaluation
// measures.
func evalSettings(acfg app.Config) map[string]any {
	return map[string]any{
		"recall-per-domain": acfg.Recall.PerDomain, "recall-min-relevance": acfg.Recall.MinRelevance,
		"recall-candidates": acfg.Recall.Candidates, "dedup-threshold": acfg.Embedder.DedupThreshold,
	}
}

// withEvalServer starts ingest, extractor, embedder and query in this
// process (in a temporary data directory unless one is set), runs run
// against its URL and stops it.
func withEvalServer(ctx context.Context, acfg app.Config, run func(url string) error) error {
	if acfg.DataDir == "" {
		dir, err := os.MkdirTemp("", "recollect-eval-")
		if err != nil {
			return fmt.Errorf("create eval data directory: %w", err)
		}
		defer os.RemoveAll(dir)
		acfg.DataDir = dir
	}
	acfg.Targets = evalTargets
	log, err := telemetry.NewFormatLogger(os.Stderr, acfg.LogLevel, acfg.LogFormat, isTerminal(os.Stderr))
	if err != nil {
		return err
	}
	a, err := app.New(acfg, log)
	if err != nil {
		return err
	}
	if err := a.Start(ctx); err != nil {
		return err
	}
	defer func() { _ = a.Stop(context.WithoutCancel(ctx)) }()
	return run(a.Web().URL())
}

// setDefault changes a flag's default (and its help text when given).
func setDefault(fs *pflag.FlagSet, name, value, usage string) {
	f := fs.Lookup(name)
	if f == nil {
		return
	}
	_ = f.Value.Set(value)
	f.DefValue = value
	if usage != "" {
		f.Usage = usage
	}
}
