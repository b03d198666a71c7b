package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchExtractCmd() *cobra.Command {
	var (
		convs, turns, handled, extractions int
		delays                             []time.Duration
		asJSON                             bool
		cpuProfile                         string
	)
	cmd := &cobra.Command{
		Use:   "extract",
		Short: "Turns per second through rule capture and the filters, and what LLM extraction adds to a scripted model's time",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&convs, "conversations", 5000, "conversations for rule capture and the filters")
	cmd.Flags().IntVar(&turns, "turns", 10, "turns per conversation")
	cmd.Flags().IntVar(&handled, "handled", 20000, "turns sent through the extractor's handler, publishing to an embedded JetStream (0: skip)")
	cmd.Flags().IntVar(&extractions, "extractions", 200, "LLM extractions (3 domains each) per model delay (0: skip)")
	cmd.Flags().DurationSliceVar(&delays, "model-delay", []time.Duration{0, 50 * time.Millisecond}, "the scripted model's answer times to measure against")
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
		res, err := bench.BenchExtract(cmd.Context(), convs, turns, handled, extractions, delays)
		if err != nil {
			return err
		}
		res.Machine = bench.ThisMachine()
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		out := cmd.OutOrStdout()
		fmt.Fprintf(out, "rule capture + filters   %.0f turns/s, %.0f conversations/s (%d conversations of %d turns, %d workers, %.2f facts/turn)\n",
			res.TurnsPerSec, res.ConversationsPerSec, res.Conversations, res.TurnsPerConv, res.Workers, res.FactsPerTurn)
		if res.HandledTurns > 0 {
			fmt.Fprintf(out, "handler + jetstream      %.0f turns/s (%d turns, decode, capture, filters, publish and ack)\n", res.HandledTurnsPerSec, res.HandledTurns)
		}
		for _, l := range res.LLM {
			fmt.Fprintf(out, "llm extraction, model %4.0f ms   latency %.2f ms, overhead mean %.2f ms, p50 %.2f ms, p99 %.2f ms (%d extractions of %d calls, %.1f facts kept)\n",
				l.ModelMs, l.MeanMs, l.OverheadMeanMs, l.OverheadP50Ms, l.OverheadP99Ms, l.Extractions, l.CallsPerExtract, l.FactsPerExtract)
		}
		fmt.Fprintf(out, "machine                  %s\n", res.Machine)
		return nil
	}
	return cmd
}
