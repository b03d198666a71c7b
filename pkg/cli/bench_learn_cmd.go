package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchLearnCmd() *cobra.Command {
	var (
		opt        bench.LearnOptions
		writers    string
		asJSON     bool
		cpuProfile string
	)
	cmd := &cobra.Command{
		Use:   "learn",
		Short: "Write latency: POST /v1/memories with wait=true through the whole pipeline in one process, at 1 and 16 writers",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&opt.Memories, "memories", 10_000, "memories in the store before the learns")
	cmd.Flags().IntVar(&opt.Learns, "learns", 300, "learns timed at each writer count")
	cmd.Flags().StringVar(&writers, "writers", "1,16", "comma-separated counts of concurrent writers")
	cmd.Flags().IntVar(&opt.Duplicates, "duplicates", 100, "learns of reworded stored contents, which the embedder folds (one writer)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		for f := range strings.SplitSeq(writers, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return fmt.Errorf("--writers %q: want positive counts separated by commas", writers)
			}
			opt.Writers = append(opt.Writers, n)
		}
		if cpuProfile != "" {
			stop, err := bench.StartCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			defer stop()
		}
		res, err := bench.BenchLearn(cmd.Context(), opt)
		if err != nil {
			return err
		}
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "memories          %d\n", res.Memories)
		line := func(label string, r bench.LearnRun) {
			fmt.Fprintf(w, "%-17s p50 %.2f ms, p99 %.2f ms, %.0f learns/s over %d (%d merged, %d timed out)\n",
				label, r.P50Ms, r.P99Ms, r.QPS, r.Learns, r.Merged, r.TimedOut)
		}
		for _, r := range res.Runs {
			line(fmt.Sprintf("%d writer(s)", r.Writers), r)
		}
		if res.Duplicates.Learns > 0 {
			line("duplicates", res.Duplicates)
		}
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		fmt.Fprintf(w, "note              %s\n", res.Note)
		return nil
	}
	return cmd
}
