package cli

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/clickhouse"
	"github.com/recollect-dev/recollect/pkg/usage/jsonl"
)

func newUsageCmd() *cobra.Command {
	var (
		dataDir string
		ch      clickhouse.Config
		tenant  string
		since   time.Duration
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Print model usage totals per component and model (ClickHouse with --clickhouse-dsn, else the local log)",
		Args:  cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&dataDir, "data-dir", "./data", "data directory holding the local usage log")
	ch.RegisterFlags("", fs)
	fs.StringVar(&tenant, "tenant", "", "only this tenant")
	fs.DurationVar(&since, "since", 0, "only the last duration (e.g. 24h); 0 = everything")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnv(fs); err != nil {
			return err
		}
		q := usage.Query{Tenant: tenant}
		if since > 0 {
			q.Since = time.Now().Add(-since)
		}
		var totals []usage.Total
		if ch.DSN != "" {
			if err := ch.Validate(); err != nil {
				return err
			}
			s, err := clickhouse.Open(cmd.Context(), ch)
			if err != nil {
				return err
			}
			defer s.Close()
			if totals, err = s.Totals(cmd.Context(), q); err != nil {
				return err
			}
		} else {
			l, err := jsonl.Open(dataDir)
			if err != nil {
				return err
			}
			defer l.Close()
			if totals, err = l.Totals(cmd.Context(), q); err != nil {
				return err
			}
		}
		if asJSON {
			return writeJSON(cmd.OutOrStdout(), totals)
		}
		tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "COMPONENT\tMODEL\tCALLS\tERRORS\tINPUT TOKENS\tOUTPUT TOKENS\tTIME")
		for _, t := range totals {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", t.Component, t.Model, t.Calls, t.Errors, t.InputTokens, t.OutputTokens, t.Duration.Round(time.Millisecond))
		}
		return tw.Flush()
	}
	return cmd
}
