package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchIngestCmd() *cobra.Command {
	var (
		events, batch, clients int
		asJSON                 bool
		cpuProfile             string
	)
	cmd := &cobra.Command{
		Use:   "ingest",
		Short: "Events accepted per second over HTTP (batches) next to raw JetStream async publishing, in one process",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&events, "events", 50000, "events to send")
	cmd.Flags().IntVar(&batch, "batch", 100, "events per HTTP request")
	cmd.Flags().IntVar(&clients, "clients", 8, "concurrent HTTP clients")
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
		res, err := bench.BenchIngest(cmd.Context(), events, batch, clients)
		if err != nil {
			return err
		}
		res.Machine = bench.ThisMachine()
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "events            %d (batches of %d, %d clients)\n", res.Events, res.Batch, res.Clients)
		fmt.Fprintf(cmd.OutOrStdout(), "http ingest       %.0f events/s (request p50 %.2f ms, p99 %.2f ms)\n", res.EventsPerSec, res.P50Ms, res.P99Ms)
		fmt.Fprintf(cmd.OutOrStdout(), "raw js publish    %.0f msgs/s\n", res.RawPublishPerSec)
		fmt.Fprintf(cmd.OutOrStdout(), "ratio             %.2f\n", res.Ratio)
		fmt.Fprintf(cmd.OutOrStdout(), "machine           %s\n", res.Machine)
		return nil
	}
	return cmd
}
