package usage

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PricesFlag is the flag (and, as RECOLLECT_USAGE_PRICES, the variable)
// that sets the price table.
const PricesFlag = "usage-prices"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Prices maps a model name, as recorded in Record.Model, to its price. A
// model missing from the table has no known cost.
type Prices map[string]Price

// ParsePrices reads "model=input/output,..." with prices in US dollars per
// million input and output tokens, e.g.
// "gpt-4o-mini=0.15/0.60,text-embedding-3-small=0.02/0". A model name may
// hold "/" (meta-llama/Llama-3-8B=0.05/0.08): the price follows the last
// "=". An empty string is an empty table.
func ParsePrices(s string) (Prices, error) {
	out := Prices{}
	var errs []error
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		model, p, err := parsePrice(entry)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s entry %q: %w", PricesFlag, entry, err))
			continue
		}
		if _, dup := out[model]; dup {
			errs = append(errs, fmt.Errorf("%s entry %q: model %s is priced twice", PricesFlag, entry, model))
			continue
		}
		out[model] = p
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func parsePrice(entry string) (string, Price, error) {
	const want = "want model=input/output in USD per million tokens, e.g. gpt-4o-mini=0.15/0.60"
	eq := strings.LastIndex(entry, "=")
	if eq < 0 {
		return "", Price{}, errors.New("no \"=\": " + want)
	}
	model := strings.TrimSpace(entry[:eq])
	if model == "" {
		return "", Price{}, errors.New("no model name: " + want)
	}
	in, out, ok := strings.Cut(entry[eq+1:], "/")
	if !ok {
		return "", Price{}, errors.New("no \"/\" between the input and output price: " + want)
	}
	var p Price
	for _, f := range []struct {
		name string
		text string
		dst  *float64
	}{{"input", in, &p.Input}, {"output", out, &p.Output}} {
		v, err := strconv.ParseFloat(strings.TrimSpace(f.text), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return "", Price{}, fmt.Errorf("%s price %q is not a non-negative number: %s", f.name, strings.TrimSpace(f.text), want)
		}
		*f.dst = v
	}
	return model, p, nil
}

// WithFree returns the table with the given models at no cost (the
// built-in embedding model) unless the table already prices them.
func (p Prices) WithFree(models ...string) Prices {
	out := make(Prices, len(p)+len(models))
	for m, pr := range p {
		out[m] = pr
	}
	for _, m := range models {
		if _, ok := out[m]; !ok {
			out[m] = Price{}
		}
	}
	return out
}

// Cost is what in input and out output tokens of model cost in US
// dollars; ok is false when the table does not price model.
func (p Prices) Cost(model string, in, out int64) (usd float64, ok bool) {
	pr, ok := p[model]
	if !ok {
		return 0, false
	}
	return (float64(in)*pr.Input + float64(out)*pr.Output) / 1e6, true
}
