package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/recollect-dev/recollect/pkg/app"
)

// writeBanner prints the few lines a person at a terminal needs once
// recollect run is ready: where it listens, two requests to try (learn a
// memory, then recall it: a recall alone answers nothing on a fresh
// store), where the data lives.
func writeBanner(w io.Writer, cfg app.Config, url string, authOn bool) {
	fmt.Fprintf(w, "\nRecollect %s is ready at %s\n", Version, url)
	if slices.Contains(cfg.Targets, app.TargetAll) || slices.Contains(cfg.Targets, app.TargetQuery) {
		header := ""
		if authOn {
			header = `-H "Authorization: Bearer $RECOLLECT_API_KEY" `
		}
		fmt.Fprintf(w, "  try:   curl -s %s%s/v1/memories -d '%s'\n", header, url, bannerLearn)
		fmt.Fprintf(w, "         curl -s %s%s/v1/recall -d '%s'\n", header, url, bannerRecall)
	}
	dir := cfg.DataDir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fmt.Fprintf(w, "  data:  %s\n", dir)
	fmt.Fprintf(w, "  stop:  Ctrl-C (acknowledged events are kept)\n\n")
}

// The banner's two requests: a memory learnt (stored before the answer),
// then a recall that finds it.
const (
	bannerLearn  = `{"tenant": "acme", "content": "Indent Go code with tabs, never spaces", "type": "preference", "wait": true}`
	bannerRecall = `{"tenant": "acme", "query": "how should I indent code?"}`
)
