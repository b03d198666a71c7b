package cli

import (
	"log/slog"
	"net/http"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/console"
)

// mountConsole serves the operator console at /ui on the query service;
// its pages call this process's own API on loopback with the key the
// person logged in with, as /mcp does with the agent's.
func mountConsole(log *slog.Logger, cfg app.Config) func(handle func(string, http.Handler), baseURL string) {
	return func(handle func(string, http.Handler), baseURL string) {
		prices, err := cfg.Usage.PriceTable()
		if err != nil {
			log.Warn("console: usage prices not read; the usage page shows no costs", "error", err)
		}
		c, err := console.New(baseURL, console.WithLogger(log), console.WithPrices(prices))
		if err != nil {
			// The templates are embedded and parsed by the tests: this is
			// a build that should not have shipped.
			log.Error("console not mounted", "error", err)
			return
		}
		c.Mount(handle)
	}
}
