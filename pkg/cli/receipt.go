package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/recollect-dev/recollect/pkg/client"
)

// writeReceipt prints an erasure receipt: its state, then one line per
// place.
func writeReceipt(w io.Writer, rc client.ErasureReceipt) error {
	fmt.Fprintf(w, "erasure %s: %s\n", rc.ID, rc.State)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLACE\tSTATE\tERASED\tNOTE")
	for _, p := range rc.Places {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.Place, p.State, p.Erased, p.Note)
	}
	return tw.Flush()
}
