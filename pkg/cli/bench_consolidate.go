package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchConsolidateCmd() *cobra.Command {
	var (
		opt    bench.ConsolidateOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Consolidation epoch time over a large tenant with a few changed memories, and its LLM calls",
		Long: "Fills one tenant of the local store with --memories synthetic memories, runs untimed epochs until the tenant is\n" +
			"consolidated, then times --epochs epochs, each after adding --changed new memories. --json prints one object\n" +
			"with memories (the tenant's size), p50_ms and p99_ms (the epochs' durations), qps (epochs per second), per-epoch\n" +
			"operation counts, LLM calls and usage-log records, peak RSS and the load average. Without --llm-url or\n" +
			"--scripted-llm no LLM is used. The rule flags are the consolidator's.",
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.IntVar(&opt.Memories, "memories", 100_000, "memories in the tenant before the timed epochs")
	fs.IntVar(&opt.Changed, "changed", 1000, "new memories added before each timed epoch")
	fs.IntVar(&opt.Epochs, "epochs", 3, "timed epochs")
	fs.DurationVar(&opt.Interval, "interval", 30*time.Minute, "how far the injected clock moves per epoch")
	fs.IntVar(&opt.MaxWarmup, "max-warmup", 30, "most untimed epochs run to consolidate the tenant first")
	fs.StringVar(&opt.DataDir, "data-dir", "", "empty directory for the store and the bus (default: a temporary one, removed afterwards)")
	fs.BoolVar(&opt.Scripted, "scripted-llm", false, "run the LLM phases against an in-process scripted model (well-formed answers, no real model)")
	fs.DurationVar(&opt.ModelDelay, "model-delay", 0, "how long the scripted model takes per call")
	fs.StringVar(&opt.CPUProfile, "cpuprofile", "", "write a CPU profile of the timed epochs to this file")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object")
	opt.Rules.RegisterFlags("", fs)
	llmFlags := pflag.NewFlagSet("llm", pflag.ContinueOnError)
	opt.LLM.RegisterFlags("", llmFlags)
	fs.AddFlagSet(llmFlags)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		res, err := bench.BenchConsolidate(cmd.Context(), opt)
		if err != nil {
			return err
		}
		res.Machine = bench.ThisMachine()
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		printConsolidate(cmd.OutOrStdout(), res)
		return nil
	}
	return cmd
}

func printConsolidate(w io.Writer, res bench.ConsolidateResult) {
	fmt.Fprintf(w, "tenant            %d memories (%d active), %d changed per epoch\n", res.Memories, res.Active, res.Changed)
	fmt.Fprintf(w, "setup             fill %.1f s, %d untimed epochs in %.1f s; one scroll of the tenant %.0f ms, %.0f ms without vectors\n",
		res.FillS, res.WarmupEpochs, res.WarmupS, res.ScrollMs, res.ScrollMetaMs)
	fmt.Fprintf(w, "epoch             p50 %.0f ms, p99 %.0f ms, mean %.0f ms over %d epochs\n", res.P50Ms, res.P99Ms, res.MeanMs, res.Epochs)
	for i, e := range res.PerEpoch {
		ev := e.Event
		fmt.Fprintf(w, "  epoch %d         %.0f ms: decayed %d, promoted %d, triaged %d, core %d, rejected %d, superseded %d, merged %d, archived %d, llm calls %d, %d ops (%d bytes), %d records written (%d log bytes)\n",
			i+1, e.Ms, ev.Decayed, ev.Promoted, ev.Triaged, ev.Core, ev.Rejected, ev.Superseded, ev.Merged, ev.Archived, ev.LLMCalls,
			e.JournalOps, e.JournalBytes, e.WrittenRecords, e.LogBytes)
	}
	fmt.Fprintf(w, "store             %.0f bytes per record, %d compactions during the timed epochs\n", res.RecordBytes, res.Compactions)
	fmt.Fprintf(w, "llm               %s (level %s): %d calls, at most %d per epoch, %d usage records\n",
		res.LLM, res.LLMLevel, res.LLMCalls, res.LLMCallsMaxPerEpoch, res.UsageRecords)
	fmt.Fprintf(w, "memory            peak rss %.0f MB, %.0f MB at the end\n", res.RSSMB, res.RSSEndMB)
	fmt.Fprintf(w, "load              %.2f before, %.2f after (%d cpus)\n", res.LoadAvgBefore, res.LoadAvgAfter, res.CPUs)
	fmt.Fprintf(w, "vectors           %s\n", res.Vectors)
	fmt.Fprintf(w, "machine           %s\n", res.Machine)
	fmt.Fprintf(w, "note              %s\n", res.Note)
}
