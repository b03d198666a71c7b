package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newReindexCmd() *cobra.Command {
	var (
		f    clientFlags
		wait bool
	)
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Move the tenant's memories to the server's configured embedding model, in the background",
		Long: "Queues a reindex: the embedder drops the vectors of memories embedded with another model (they stay\n" +
			"findable lexically), then re-embeds them in batches. With Qdrant it first adopts the tenant's memories\n" +
			"from other models' collections. Recall keeps working meanwhile. Safe to repeat.\n\n" +
			"With --wait it follows the request until it is done (exit 0) or failed (an error naming the reason),\n" +
			"drawing a bar on a terminal and staying quiet otherwise; --timeout then bounds the whole wait\n" +
			"(unset: no limit). The state is also at GET /v1/reindex.",
		Example: `  recollect reindex --tenant acme --wait`,
		Args:    cobra.NoArgs,
	}
	f.register(cmd.Flags())
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the reindex is done or failed")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		resp, err := c.Reindex(ctx, "")
		if err != nil {
			return unsupported(err, f.url, "reindex")
		}
		if !wait {
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), resp)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "reindex of tenant %s queued (%s)\n", resp.Tenant, resp.Reindex)
			return err
		}
		var limit time.Duration
		if cmd.Flags().Changed("timeout") {
			limit = f.timeout
		}
		st, err := waitReindex(cmd.Context(), c, resp.Tenant, resp.Reindex, reindexWait{
			limit: limit, call: f.timeout, every: reindexPoll, w: cmd.ErrOrStderr(),
		})
		if err != nil {
			return unsupported(err, f.url, "reindex status")
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), st)
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "reindex of tenant %s done (%s): %d memories re-embedded\n", st.Tenant, st.ID, st.Done)
		return err
	}
	return cmd
}
