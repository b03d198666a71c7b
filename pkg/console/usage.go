package console

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// usageDays is how many days the usage charts cover.
const usageDays = 7

// WithPrices prices the usage page's tokens (--usage-prices); without it
// the page shows tokens and calls only.
func WithPrices(p usage.Prices) Option { return func(c *Console) { c.prices = p } }

type usageRow struct {
	api.UsageTotal
	Cost   float64
	Priced bool
}

type usageData struct {
	Days      int
	Tokens    chartHTML
	Calls     chartHTML
	Cost      chartHTML
	Rows      []usageRow
	TotalCost float64
	Priced    bool
}

// usagePage: the tenant's model usage per component and model, per day
// over the last week, as charts and a table. The API gives totals since
// a time; a day is the difference of two such totals.
func (c *Console) usagePage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	cl := c.api(s)
	// cumulative[k] is the totals of the last k days; cumulative[0] none.
	cumulative := make([]map[[2]string]api.UsageTotal, usageDays+1)
	cumulative[0] = map[[2]string]api.UsageTotal{}
	for k := 1; k <= usageDays; k++ {
		ts, err := cl.Usage(r.Context(), tenant, time.Duration(k)*24*time.Hour)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		m := map[[2]string]api.UsageTotal{}
		for _, t := range ts {
			m[[2]string{t.Component, t.Model}] = t
		}
		cumulative[k] = m
	}
	d := usageData{Days: usageDays, Priced: len(c.prices) > 0}
	week := cumulative[usageDays]
	keys := make([][2]string, 0, len(week))
	for k := range week {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	now := c.now().UTC()
	labels := make([]string, usageDays)
	for i := range labels {
		// Column i is the day ending (usageDays-1-i) days ago.
		labels[i] = now.Add(-time.Duration(usageDays-1-i) * 24 * time.Hour).Format("Jan 2")
	}
	byComponent := map[string]*series{}
	var comps []string
	tokens, calls, cost := []series{}, []series{}, []series{}
	for _, k := range keys {
		t := week[k]
		row := usageRow{UsageTotal: t}
		row.Cost, row.Priced = c.cost(t)
		d.TotalCost += row.Cost
		d.Rows = append(d.Rows, row)
		ser := byComponent[k[0]]
		if ser == nil {
			ser = &series{Name: k[0], Values: make([]float64, usageDays)}
			byComponent[k[0]] = ser
			comps = append(comps, k[0])
		}
		callSer := series{Name: k[0] + " · " + k[1], Values: make([]float64, usageDays)}
		costSer := series{Name: k[1], Values: make([]float64, usageDays)}
		for i := range usageDays {
			daysAgo := usageDays - i // the day from daysAgo to daysAgo-1 days ago
			hi, lo := cumulative[daysAgo][k], cumulative[daysAgo-1][k]
			ser.Values[i] += float64(hi.InputTokens + hi.OutputTokens - lo.InputTokens - lo.OutputTokens)
			callSer.Values[i] = float64(hi.Calls - lo.Calls)
			ch, _ := c.cost(hi)
			cl, _ := c.cost(lo)
			costSer.Values[i] = ch - cl
		}
		calls = append(calls, callSer)
		if row.Priced {
			cost = append(cost, costSer)
		}
	}
	for _, name := range comps {
		tokens = append(tokens, *byComponent[name])
	}
	d.Tokens = barChart("Tokens per day by component", labels, tokens, "tokens")
	d.Calls = barChart("Model calls per day by component and model", labels, calls, "calls")
	if len(cost) > 0 {
		d.Cost = barChart("Cost per day by model (USD, --usage-prices)", labels, cost, "USD")
	}
	c.pages.render(w, "usage.html", c.view(r, s, "Usage · "+tenant, "usage", d))
}

// cost prices a total with the price table; false when its model has no
// price.
func (c *Console) cost(t api.UsageTotal) (float64, bool) {
	p, ok := c.prices[t.Model]
	if !ok {
		return 0, false
	}
	return (float64(t.InputTokens)*p.Input + float64(t.OutputTokens)*p.Output) / 1e6, true
}
