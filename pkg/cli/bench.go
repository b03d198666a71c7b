package cli

import (
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure Recollect on this machine",
	}
	cmd.AddCommand(newBenchIngestCmd())
	cmd.AddCommand(newBenchExtractCmd())
	cmd.AddCommand(newBenchEmbedCmd())
	cmd.AddCommand(newBenchStoreCmd())
	cmd.AddCommand(newBenchRecallCmd())
	cmd.AddCommand(newBenchConsolidateCmd())
	return cmd
}
