package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchRecallCmd() *cobra.Command {
	var (
		opt    bench.RecallOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "recall",
		Short: "Recall latency and throughput over HTTP against the query module, on a pre-filled local store",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&opt.Memories, "memories", 100_000, "memories in the store")
	cmd.Flags().IntVar(&opt.Tenants, "tenants", 1, "tenants the memories are spread over (round robin); each query picks one at random")
	cmd.Flags().IntVar(&opt.Queries, "queries", 2000, "recall requests sent by the concurrent clients")
	cmd.Flags().IntVar(&opt.Clients, "clients", 64, "concurrent HTTP clients")
	cmd.Flags().IntVar(&opt.Clients, "concurrency", 64, "concurrent HTTP clients (same as --clients)")
	cmd.Flags().IntVar(&opt.SingleQueries, "single-queries", 100, "recall requests sent by one client alone first")
	cmd.Flags().IntVar(&opt.K, "k", 10, "memories per recall")
	cmd.Flags().StringVar(&opt.Vectors, "vectors", bench.VectorsText, "stored vectors: text (mixes of embedded DevChat sentences, as real memories cluster) or random (unit vectors)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	learnWait := cmd.Flags().Bool("learn-wait", true, "also time POST /v1/memories with wait=true (learn_wait_p50_ms, learn_wait_p99_ms)")
	cmd.Flags().IntVar(&opt.LearnWaits, "learn-waits", 200, "learns with wait=true timed when --learn-wait is on")
	cmd.Flags().StringVar(&opt.CPUProfile, "cpuprofile", "", "write a CPU profile of the recall phases (not the fill) to this file")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if !*learnWait {
			opt.LearnWaits = 0
		}
		res, err := bench.BenchRecall(cmd.Context(), opt)
		if err != nil {
			return err
		}
		res.Machine = bench.ThisMachine()
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "memories          %d over %d tenants\n", res.Memories, res.Tenants)
		fmt.Fprintf(w, "one client        p50 %.2f ms, p99 %.2f ms\n", res.P50Ms, res.P99Ms)
		fmt.Fprintf(w, "%d clients        %.0f recalls/s, p50 %.2f ms, p99 %.2f ms\n", res.Clients, res.QPS, res.ConcurrentP50Ms, res.ConcurrentP99Ms)
		if res.LearnWaits > 0 {
			fmt.Fprintf(w, "learn, wait=true  p50 %.2f ms, p99 %.2f ms over %d (%d merged, %d timed out)\n",
				res.LearnWaitP50Ms, res.LearnWaitP99Ms, res.LearnWaits, res.LearnWaitMerged, res.LearnWaitTimeout)
		}
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		fmt.Fprintf(w, "note              %s\n", res.Note)
		return nil
	}
	return cmd
}
