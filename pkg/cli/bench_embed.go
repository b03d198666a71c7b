package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchEmbedCmd() *cobra.Command {
	var (
		batch, batches, queries, long int
		asJSON                        bool
		cpuProfile                    string
	)
	cmd := &cobra.Command{
		Use:   "embed",
		Short: "Built-in embedding model: sentences per second (all cores and one), query latency, peak memory",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&batch, "batch", 64, "sentences per Embed call")
	cmd.Flags().IntVar(&batches, "batches", 10, "batches to time at each GOMAXPROCS")
	cmd.Flags().IntVar(&queries, "queries", 200, "single-sentence queries to time")
	cmd.Flags().IntVar(&long, "long-messages", 100, "code-heavy messages of 1-8 KB embedded chunk by chunk through the embedder's batcher (0: skip)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if cpuProfile != "" {
			stop, err := bench.StartCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			defer stop()
		}
		res, err := bench.BenchEmbed(cmd.Context(), batch, batches, queries, long)
		if err != nil {
			return err
		}
		res.Machine = bench.ThisMachine()
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "model             %s, batches of %d (%.1f tokens each)\n", res.Model, res.Batch, res.TokensPerSentence)
		fmt.Fprintf(w, "throughput        %.0f sentences/s on %d cores, %.0f on one\n", res.SentencesPerSec, res.GOMAXPROCS, res.SentencesPerSecPerCore)
		fmt.Fprintf(w, "one query         p50 %.2f ms, p99 %.2f ms\n", res.QueryMsP50, res.QueryMsP99)
		if l := res.Long; l != nil {
			fmt.Fprintf(w, "long messages     %d of %.0f bytes on average, %d chunks of %.0f tokens, %d concurrent callers\n",
				l.Messages, l.BytesPerMessage, l.Chunks, l.TokensPerChunk, l.Callers)
			fmt.Fprintf(w, "long throughput   %.0f tokens/s through the embedder (%.1f messages/s), %.0f straight to the model; short batch %.0f tokens/s; ratio %.2f\n",
				l.TokensPerSec, l.MessagesPerSec, l.KernelTokensPerSec, l.ShortTokensPerSec, l.Ratio)
			fmt.Fprintf(w, "per CPU second    %.0f tokens through the embedder, %.0f straight to the model; short batch %.0f; ratio %.2f\n",
				l.TokensPerCPUSec, l.KernelTokensPerCPUSec, l.ShortTokensPerCPUSec, l.CPURatio)
		}
		fmt.Fprintf(w, "peak rss          %.0f MB\n", res.RSSMB)
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		return nil
	}
	return cmd
}
