package cli

import (
	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure Recollect on this machine",
		// The long phases draw bars on stderr when it is a terminal.
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			stderr := cmd.ErrOrStderr()
			cmd.SetContext(bench.WithBars(cmd.Context(), func(total int, desc, unit string) bench.Bar {
				return newProgress(stderr, int64(total), desc, unit)
			}))
		},
	}
	cmd.AddCommand(newBenchIngestCmd())
	cmd.AddCommand(newBenchExtractCmd())
	cmd.AddCommand(newBenchEmbedCmd())
	cmd.AddCommand(newBenchStoreCmd())
	cmd.AddCommand(newBenchRecallCmd())
	cmd.AddCommand(newBenchLearnCmd())
	cmd.AddCommand(newBenchConsolidateCmd())
	cmd.AddCommand(newBenchImportCmd())
	cmd.AddCommand(newBenchDrainCmd())
	return cmd
}
