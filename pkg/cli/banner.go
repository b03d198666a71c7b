package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/recollect-dev/recollect/pkg/app"
)

// writeBanner prints the few lines a person at a terminal needs once
// recollect run is ready: where it listens, one request to try, where the
// data lives.
func writeBanner(w io.Writer, cfg app.Config, url string, authOn bool) {
	fmt.Fprintf(w, "\nRecollect %s is ready at %s\n", Version, url)
	if slices.Contains(cfg.Targets, app.TargetAll) || slices.Contains(cfg.Targets, app.TargetQuery) {
		header := ""
		if authOn {
			header = `-H "Authorization: Bearer $RECOLLECT_API_KEY" `
		}
		fmt.Fprintf(w, "  try:   curl -s %s%s/v1/recall -d '{\"tenant\": \"acme\", \"query\": \"how should I indent code?\"}'\n", header, url)
	}
	dir := cfg.DataDir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fmt.Fprintf(w, "  data:  %s\n", dir)
	fmt.Fprintf(w, "  stop:  Ctrl-C (acknowledged events are kept)\n\n")
}
