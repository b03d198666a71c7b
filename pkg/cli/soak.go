package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/soak"
)

// newSoakCmd is `recollect soak`: steady mixed load against a running
// server, failing on lost events or a memory/goroutine leak.
func newSoakCmd() *cobra.Command {
	cfg := soak.Defaults()
	var out string
	cmd := &cobra.Command{
		Use:   "soak",
		Short: "Drive steady mixed ingest, learn and recall against a server for --duration; fail on lost events or rising memory/goroutines",
		Long: "Drive mixed load against a server for --duration. During --warm-up the dataset grows (half ingest, a quarter learn, " +
			"a quarter recall); after it, a quarter of the operations forget (purge the subjects of the two oldest stored writes), " +
			"so the dataset holds steady and resident memory and goroutines are judged over that steady phase only: a rise there " +
			"is a leak, not growth. Fails on lost or duplicated writes, forgotten writes still stored, errors, or a rise over the bounds.",
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.URL, "url", cfg.URL, "Recollect server URL (its /metrics is sampled too)")
	fs.StringVar(&cfg.APIKey, "api-key", "", "API key sent as a bearer token; set RECOLLECT_API_KEY rather than the flag")
	fs.StringVar(&cfg.Tenant, "tenant", cfg.Tenant, "tenant the soak writes to (use a throwaway one)")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long to drive load")
	fs.Float64Var(&cfg.Rate, "rate", cfg.Rate, "operations per second: half ingest, a quarter learn, a quarter recall")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "concurrent clients")
	fs.DurationVar(&cfg.SampleEvery, "sample-every", cfg.SampleEvery, "how often /metrics is sampled")
	fs.DurationVar(&cfg.WarmUp, "warm-up", 0, "growing phase before the steady one (default a third of --duration)")
	fs.DurationVar(&cfg.Settle, "settle", cfg.Settle, "how long acknowledged events may take to be stored after the load")
	fs.Float64Var(&cfg.RSSGrowth, "max-rss-growth", cfg.RSSGrowth, "allowed rise of resident memory over the steady phase, last quarter over first (0.25 = +25%)")
	fs.Float64Var(&cfg.GoroutineGrowth, "max-goroutine-growth", cfg.GoroutineGrowth, "allowed rise of goroutines over the steady phase, last quarter over first, plus 50")
	fs.StringVar(&out, "out", "", "write the report as JSON to this file")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnv(fs); err != nil {
			return err
		}
		log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
		rep, err := soak.Run(cmd.Context(), cfg, log)
		if err != nil {
			return fmt.Errorf("soak: %w", err)
		}
		printSoak(cmd.OutOrStdout(), rep)
		if out != "" {
			f, err := os.Create(out)
			if err != nil {
				return fmt.Errorf("write soak report: %w", err)
			}
			werr := writeJSON(f, rep)
			if err := errors.Join(werr, f.Close()); err != nil {
				return fmt.Errorf("write soak report %s: %w", out, err)
			}
		}
		if len(rep.Failures) > 0 {
			return fmt.Errorf("soak failed: %s", strings.Join(rep.Failures, "; "))
		}
		return nil
	}
	return cmd
}

func printSoak(w io.Writer, r *soak.Report) {
	fmt.Fprintf(w, "soak: %.0fs, %d operations (%.1f/s), %d errors\n", r.DurationS, r.Ops, r.RateAchieved, r.Errors)
	fmt.Fprintf(w, "events acked %d, learns acked %d, forgotten %d (%d still stored), stored %d, lost %d, duplicated %d\n",
		r.Ingested, r.Learned, r.Forgotten, r.ForgottenLeft, r.Stored, r.Lost, r.Duplicated)
	fmt.Fprintf(w, "recalls %d, p99 %.1f ms\n", r.Recalls, r.RecallP99Ms)
	fmt.Fprintf(w, "resident memory %.0f → %.0f MB, goroutines %.0f → %.0f (first → last quarter of the steady phase)\n",
		r.RSSFirst/(1<<20), r.RSSLast/(1<<20), r.GoroutinesFirst, r.GoroutinesLast)
	for _, s := range r.Samples {
		phase := "warm-up"
		if s.Steady {
			phase = "steady "
		}
		fmt.Fprintf(w, "  %7.0fs %s live %6d  rss %6.0f MB  goroutines %5.0f  recall p50 %7.1f ms p99 %7.1f ms (%d)  ops %d errors %d %s\n",
			s.AtS, phase, s.Live, s.RSSBytes/(1<<20), s.Goroutines, s.RecallP50Ms, s.RecallP99Ms, s.Recalls, s.Ops, s.Errors, s.ScrapeFailed)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL: %s\n", f)
	}
}
