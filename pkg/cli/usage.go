package cli

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/embed/minilm"
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
		prices  string
	)
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Print model usage totals per component and model (ClickHouse with --clickhouse-dsn, else the local log); with --usage-prices, their cost",
		Args:  cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&dataDir, "data-dir", "./data", "data directory holding the local usage log")
	ch.RegisterFlags("", fs)
	fs.StringVar(&tenant, "tenant", "", "only this tenant")
	fs.DurationVar(&since, "since", 0, "only the last duration (e.g. 24h); 0 = everything")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	usage.RegisterPricesFlag(&prices, "", fs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnv(fs); err != nil {
			return err
		}
		table, err := usage.ParsePrices(prices)
		if err != nil {
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
		if len(table) == 0 {
			table = nil // no prices configured: no cost column
		} else {
			table = table.WithFree(minilm.ModelName)
		}
		return printUsage(cmd.OutOrStdout(), totals, table, asJSON)
	}
	return cmd
}

// usageRow is a total with its cost when the model is priced.
type usageRow struct {
	usage.Total
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// printUsage prints totals as a table or JSON; with prices, a cost column
// ("-" for a model the table does not price) and a total line.
func printUsage(w io.Writer, totals []usage.Total, prices usage.Prices, asJSON bool) error {
	rows := make([]usageRow, len(totals))
	var sum float64
	for i, t := range totals {
		rows[i].Total = t
		if usd, ok := prices.Cost(t.Model, t.InputTokens, t.OutputTokens); ok {
			rows[i].CostUSD = &usd
			sum += usd
		}
	}
	if asJSON {
		return writeJSON(w, rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "COMPONENT\tMODEL\tCALLS\tERRORS\tINPUT TOKENS\tOUTPUT TOKENS\tTIME"
	if prices != nil {
		header += "\tCOST (USD)"
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s", r.Component, r.Model, r.Calls, r.Errors, r.InputTokens, r.OutputTokens, r.Duration.Round(time.Millisecond))
		if prices != nil {
			fmt.Fprint(tw, "\t"+formatUSD(r.CostUSD))
		}
		fmt.Fprintln(tw)
	}
	if prices != nil && len(rows) > 0 {
		fmt.Fprintf(tw, "TOTAL\t(priced models)\t\t\t\t\t\t%s\n", formatUSD(&sum))
	}
	return tw.Flush()
}

// formatUSD shows cents, and more digits for sub-cent amounts.
func formatUSD(usd *float64) string {
	switch {
	case usd == nil:
		return "-"
	case *usd == 0 || *usd >= 0.01:
		return strconv.FormatFloat(*usd, 'f', 2, 64)
	default:
		return strconv.FormatFloat(*usd, 'f', 6, 64)
	}
}
