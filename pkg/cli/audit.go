package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/client"
)

func newAuditCmd() *cobra.Command {
	var (
		f            clientFlags
		opts         client.AuditOptions
		since, until string
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Print what consolidation epochs applied or refused, newest first (--json adds the memories before and after)",
		Example: `  recollect audit --tenant acme
  recollect audit --tenant acme --memory 3f2a... --json
  recollect audit --tenant acme --phase gate --op reject --since 24h`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringVar(&opts.Phase, "phase", "", "only this phase: triage, gate, merge, reconcile, supersede, distill, audit, decay, archive, retention, purge, ...")
	fs.StringVar(&opts.Op, "op", "", "only this operation: promote, demote, adjust, merge, supersede, archive, delete, keep, reject, create, ...")
	fs.StringVar(&opts.MemoryID, "memory", "", "only operations on this memory id")
	fs.StringVar(&opts.Epoch, "epoch", "", "only this epoch (its request id, as POST /v1/consolidate answers)")
	fs.StringVar(&since, "since", "", "only entries from this time on: an RFC 3339 time or a duration ago (24h)")
	fs.StringVar(&until, "until", "", "only entries before this time: an RFC 3339 time or a duration ago")
	fs.IntVar(&opts.Limit, "limit", 0, fmt.Sprintf("entries to print, at most %d (default: the server's, %d)", auditlog.MaxLimit, auditlog.DefaultLimit))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var err error
		now := time.Now()
		if opts.Since, err = timeFlag("since", since, now); err != nil {
			return err
		}
		if opts.Until, err = timeFlag("until", until, now); err != nil {
			return err
		}
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		resp, err := c.Audit(ctx, opts)
		if err != nil {
			return unsupported(err, c.BaseURL(), "audit")
		}
		w := cmd.OutOrStdout()
		if f.asJSON {
			return writeJSON(w, resp)
		}
		if len(resp.Entries) == 0 {
			fmt.Fprintf(w, "No audit entries for tenant %s.\n", resp.Tenant)
			return nil
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TIME\tSEQ\tPHASE\tOP\tRESULT\tDECIDER\tMEMORIES\tCHANGE\tREASON")
		for _, e := range resp.Entries {
			result, decider := "refused", e.Decider
			if e.Applied {
				result = "applied"
			}
			if e.Model != "" {
				decider += ":" + e.Model
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.UTC().Format(time.RFC3339), e.Seq, oneLine(e.Phase, 20), oneLine(e.Op, 20),
				result, decider, memoryList(e.MemoryIDs), oneLine(changes(e.Before, e.After), 60), oneLine(e.Reason, 80))
		}
		return tw.Flush()
	}
	return cmd
}

// timeFlag reads an RFC 3339 time or a duration before now; "" is no bound.
func timeFlag(name, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q: want an RFC 3339 time (2025-06-01T12:00:00Z) or a duration ago (24h)", name, s)
	}
	return t, nil
}

// memoryList prints up to three ids and how many more there are.
func memoryList(ids []string) string {
	const shown = 3
	if len(ids) == 0 {
		return "-"
	}
	if len(ids) <= shown {
		return strings.Join(ids, ",")
	}
	return fmt.Sprintf("%s +%d", strings.Join(ids[:shown], ","), len(ids)-shown)
}
