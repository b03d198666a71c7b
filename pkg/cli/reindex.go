package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newReindexCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Move the tenant's memories to the server's configured embedding model, in the background",
		Long: "Queues a reindex: the embedder drops the vectors of memories embedded with another model (they stay\n" +
			"findable lexically), then re-embeds them in batches. With Qdrant it first adopts the tenant's memories\n" +
			"from other models' collections. Recall keeps working meanwhile; progress is in the\n" +
			"embedder's logs and the recollect_embedder_reindexed_total metric. Safe to repeat.",
		Args: cobra.NoArgs,
	}
	f.register(cmd.Flags())
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
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "reindex of tenant %s queued (%s)\n", resp.Tenant, resp.Reindex)
		return err
	}
	return cmd
}
