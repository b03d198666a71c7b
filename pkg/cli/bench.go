package cli

import (
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure Recollect on this machine",
		// The long phases draw bars on stderr when it is a terminal.
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			cmd.SetContext(withProgress(cmd.Context(), cmd.ErrOrStderr()))
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
