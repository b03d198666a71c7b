package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/client"
)

// newWebhooksCmd manages the tenant's signed webhook endpoints.
func newWebhooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhooks",
		Short: "Manage signed webhooks: add, list, remove, rotate",
	}
	cmd.AddCommand(newWebhooksAddCmd(), newWebhooksListCmd(), newWebhooksRemoveCmd(), newWebhooksRotateCmd())
	return cmd
}

func newWebhooksAddCmd() *cobra.Command {
	var f clientFlags
	var types []string
	var desc string
	cmd := &cobra.Command{
		Use:   "add URL",
		Short: "Register an endpoint; prints its signing secret once",
		Args:  cobra.ExactArgs(1),
	}
	f.register(cmd.Flags())
	cmd.Flags().StringSliceVar(&types, "types", nil, "event types to receive (default all): memory.stored, memory.updated, memory.superseded, memory.archived, memory.deleted, memory.quarantined, epoch.completed, purge.completed")
	cmd.Flags().StringVar(&desc, "description", "", "a note for people")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		w, err := c.CreateWebhook(ctx, client.CreateWebhookRequest{URL: args[0], Types: types, Description: desc})
		if err != nil {
			return unsupported(err, f.url, "webhooks")
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), w)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "webhook %s → %s\nsecret  %s\n(keep the secret: it is not shown again)\n", w.ID, w.URL, w.Secret)
		return nil
	}
	return cmd
}

func newWebhooksListCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{Use: "list", Short: "List the tenant's endpoints", Args: cobra.NoArgs}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		ws, err := c.Webhooks(ctx, "")
		if err != nil {
			return unsupported(err, f.url, "webhooks")
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), ws)
		}
		tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tURL\tTYPES\tCREATED")
		for _, w := range ws {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", w.ID, w.URL, strings.Join(w.Types, ","), w.Created.Format(time.RFC3339))
		}
		return tw.Flush()
	}
	return cmd
}

func newWebhooksRemoveCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{Use: "remove ID", Short: "Remove an endpoint; deliveries to it stop", Args: cobra.ExactArgs(1)}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		if err := c.DeleteWebhook(ctx, "", args[0]); err != nil {
			return unsupported(err, f.url, "webhooks")
		}
		fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", args[0])
		return nil
	}
	return cmd
}

func newWebhooksRotateCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{Use: "rotate ID", Short: "Make a new signing secret; the old one signs too until the grace ends", Args: cobra.ExactArgs(1)}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		w, err := c.RotateWebhookSecret(ctx, "", args[0])
		if err != nil {
			return unsupported(err, f.url, "webhooks")
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), w)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "webhook %s\nsecret  %s\n(the previous secret keeps signing until the server's rotation grace ends)\n", w.ID, w.Secret)
		return nil
	}
	return cmd
}
