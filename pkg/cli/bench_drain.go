package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchDrainCmd() *cobra.Command {
	var (
		opt    bench.DrainOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "drain",
		Short: "Backlog drain: long messages published with the workers stopped, then stored per second once they start (one process, no LLM)",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&opt.Messages, "messages", 5000, "messages in the backlog")
	cmd.Flags().IntVar(&opt.MaxBytes, "max-bytes", bench.LongMaxBytes, fmt.Sprintf("longest message, %d to %d bytes", bench.LongMinBytes, bench.LongMaxBytes))
	cmd.Flags().DurationVar(&opt.Timeout, "timeout", 2*time.Hour, "give up when the backlog is not stored within this")
	cmd.Flags().StringVar(&opt.CPUProfile, "cpuprofile", "", "write a CPU profile of the drain to this file")
	cmd.Flags().BoolVar(&opt.Turns, "turns", false, "the backlog is streamed conversation turns (turn events from DevChat's generated sessions), each kept as a transcript memory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		res, err := bench.BenchDrain(cmd.Context(), opt)
		if err != nil {
			return err
		}
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "backlog           %d messages of %.0f bytes on average, %d chunks of %.0f tokens, published in %.1f s\n",
			res.Messages, res.BytesPerMessage, res.Chunks, res.TokensPerChunk, res.PublishSec)
		fmt.Fprintf(w, "drain             %.1f s (start %.0f ms): %.1f messages/s, %.0f tokens/s (%.0f per CPU second)\n",
			res.DrainSec, res.StartMs, res.MessagesPerSec, res.TokensPerSec, res.TokensPerCPUSec)
		fmt.Fprintf(w, "half, 99%% stored  after %.1f s, %.1f s\n", res.P50Ms/1000, res.P99Ms/1000)
		fmt.Fprintf(w, "stored            %d inserted, %d reinforced, %d updated; store holds %d memories (%d transcripts), %d with chunk vectors\n",
			res.Inserted, res.Reinforced, res.Updated, res.StoredMemories, res.Transcripts, res.Chunked)
		fmt.Fprintf(w, "storage           %.0f bytes on disk per message (local store)\n", res.StoreBytesPerMessage)
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		fmt.Fprintf(w, "note              %s\n", res.Note)
		return nil
	}
	return cmd
}
