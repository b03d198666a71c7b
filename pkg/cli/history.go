package cli

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// newHistoryCmd prints a memory's versions on both clocks: when each was
// true in the world (valid) and when Recollect learnt it and learnt
// otherwise (record).
func newHistoryCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:     "history <memory-id>",
		Short:   "Show a memory's versions with both timelines: valid (true in the world) and record (known to Recollect)",
		Example: `  recollect history --tenant acme 3f9c…`,
		Args:    cobra.ExactArgs(1),
	}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		h, err := c.History(ctx, f.tenant, args[0])
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if f.asJSON {
			return writeJSON(w, h)
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\tVALID FROM\tVALID UNTIL\tRECORDED\tINVALIDATED\tID\tCONTENT")
		for _, v := range h.Chain {
			mark := ""
			if v.ID == h.ID {
				mark = "*"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, stamp(v.ValidFrom), stampPtr(v.ValidUntil), stamp(v.CreatedAt),
				stampPtr(v.InvalidAt), v.ID, oneLine(v.Content, 60))
		}
		return tw.Flush()
	}
	return cmd
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func stampPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return stamp(*t)
}
