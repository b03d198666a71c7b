package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/query"
)

// newConsolidateCmd asks for a consolidation epoch of the tenant now.
func newConsolidateCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Ask for a consolidation epoch of the tenant now (runs in the background)",
		Long: `Ask for a consolidation epoch of the tenant now: triage, promotion to core,
supersession of updated facts, merges, distillation, audit, decay and retention.
It runs in the background; "recollect audit" shows what it did. Buffer memories younger
than the server's --triage-min-age (default 10m) are not triaged yet: the answer says how many.`,
		Args: cobra.NoArgs,
	}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		resp, err := c.Consolidate(ctx, query.ConsolidateRequest{})
		if err != nil {
			return err
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		if _, err := fmt.Fprintf(cmd.OutOrStdout(), "epoch %s requested for tenant %s\n", resp.Epoch, resp.Tenant); err != nil {
			return err
		}
		if resp.TooYoung > 0 {
			minAge := time.Duration(resp.TriageMinAgeSeconds * float64(time.Second))
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%d buffer memories are younger than %s and wait for a later epoch's triage (the server's --triage-min-age)\n",
				resp.TooYoung, minAge)
		}
		return err
	}
	return cmd
}
