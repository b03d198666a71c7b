package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
		f       clientFlags
		dataDir string
		ch      clickhouse.Config
		since   time.Duration
		prices  string
	)
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Print model usage totals per component and model; with --usage-prices, their cost",
		Long: `Print model usage totals (calls, tokens, time) per component and model.

Where they are read from, first match wins:
  --url given         the server's GET /v1/usage (what its usage module wrote)
  --clickhouse-dsn    ClickHouse, directly
  --data-dir          the local log <data-dir>/usage.jsonl (an error when there is none)
  otherwise           the server at --url (default http://127.0.0.1:7700)
--tenant narrows to one tenant (a tenant API key only ever reads its own).`,
		Example: `  recollect usage --since 24h
  recollect usage --data-dir /var/lib/recollect --json`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	f.register(fs)
	_ = fs.MarkHidden("namespace") // usage is per tenant
	fs.Lookup("tenant").Usage = "only this tenant (default: every tenant, or the API key's own)"
	fs.StringVar(&dataDir, "data-dir", "", "read the local usage log of this data directory (the server's --data-dir) instead of the server")
	ch.RegisterFlags("", fs)
	fs.DurationVar(&since, "since", 0, "only the last duration (e.g. 24h); 0 = everything")
	usage.RegisterPricesFlag(&prices, "", fs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		urlGiven := fs.Changed("url")
		if err := applyEnv(fs); err != nil {
			return err
		}
		table, err := usage.ParsePrices(prices)
		if err != nil {
			return err
		}
		q := usage.Query{Tenant: f.tenant}
		if since > 0 {
			q.Since = time.Now().Add(-since)
		}
		var totals []usage.Total
		switch {
		case !urlGiven && ch.DSN != "":
			totals, err = clickhouseTotals(cmd.Context(), ch, q)
		case !urlGiven && fs.Changed("data-dir"):
			totals, err = localTotals(cmd.Context(), dataDir, q)
		default:
			c, ctx, cancel, serr := f.start(cmd, 0)
			if serr != nil {
				return serr
			}
			defer cancel()
			totals, err = c.Usage(ctx, f.tenant, since)
			err = unsupported(err, f.url, "usage (GET /v1/usage): read its log with --data-dir or --clickhouse-dsn")
		}
		if err != nil {
			return err
		}
		if len(table) == 0 {
			table = nil // no prices configured: no cost column
		} else {
			table = table.WithFree(minilm.ModelName)
		}
		return printUsage(cmd.OutOrStdout(), totals, table, f.asJSON)
	}
	return cmd
}

func clickhouseTotals(ctx context.Context, ch clickhouse.Config, q usage.Query) ([]usage.Total, error) {
	if err := ch.Validate(); err != nil {
		return nil, err
	}
	s, err := clickhouse.Open(ctx, ch)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Totals(ctx, q)
}

// localTotals reads <dir>/usage.jsonl; a directory without one is an error
// (a wrong --data-dir), not an empty table.
func localTotals(ctx context.Context, dir string, q usage.Query) ([]usage.Total, error) {
	path := filepath.Join(dir, jsonl.FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no usage log at %s (%w): give the server's --data-dir, or read from the server with --url", path, err)
	}
	l, err := jsonl.Open(dir)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return l.Totals(ctx, q)
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
