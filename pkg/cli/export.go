package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
)

// transferTime is how long an export or import may take on top of
// --timeout: a tenant's whole memory moves in one command.
const transferTime = 10 * time.Minute

func newExportCmd() *cobra.Command {
	var (
		f          clientFlags
		markdown   bool
		out        string
		prefix     string
		vectors    bool
		highlights int
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a tenant's memories: NDJSON with every field (--json, the default) or the operator's markdown snapshot (--markdown)",
		Example: `  recollect export --tenant acme --out acme.ndjson
  recollect export --markdown --tenant acme --out MEMORY.md`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.BoolVar(&markdown, "markdown", false, "render the markdown snapshot: people, lore, recent highlights, counts")
	fs.StringVarP(&out, "out", "o", "", "write to this file (default: standard output)")
	fs.StringVar(&prefix, "namespace-prefix", "", "only namespaces starting with this")
	fs.BoolVar(&vectors, "vectors", false, "include vectors in the NDJSON (a restore into a store of the same model then needs no embedding)")
	fs.IntVar(&highlights, "highlights", snapshot.DefaultHighlights, "memories listed under recent highlights (--markdown)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if markdown && f.asJSON {
			return errors.New("--json and --markdown exclude each other")
		}
		c, ctx, cancel, err := f.start(cmd, transferTime)
		if err != nil {
			return err
		}
		defer cancel()
		c = c.WithOptions(client.WithHTTPClient(&http.Client{})) // the deadline is ctx's
		opts := client.ExportOptions{NamespacePrefix: prefix, Vectors: vectors && !markdown}
		bar := &progress{} // none while the memories themselves scroll by on the terminal
		if out != "" || !isTerminal(cmd.OutOrStdout()) {
			bar = newProgress(cmd.ErrOrStderr(), -1, "exporting", "memories")
		}
		exported := 0
		err = writeOutput(cmd.OutOrStdout(), out, func(w io.Writer) error {
			if !markdown {
				enc := json.NewEncoder(w)
				_, err := c.Export(ctx, opts, func(m memory.Memory) error { bar.Add(1); exported++; return enc.Encode(m) })
				return err
			}
			var mems []memory.Memory
			if _, err := c.Export(ctx, opts, func(m memory.Memory) error { bar.Add(1); exported++; mems = append(mems, m); return nil }); err != nil {
				return err
			}
			tenant := f.tenant
			if tenant == "" && len(mems) > 0 {
				tenant = mems[0].Tenant
			}
			_, err := io.WriteString(w, snapshot.Markdown(mems, snapshot.MarkdownOptions{Tenant: tenant, Generated: time.Now(), Highlights: highlights}))
			return err
		})
		if err != nil {
			bar.End() // left where it stopped
			return err
		}
		bar.Done(exported)
		return nil
	}
	return cmd
}

// writeOutput runs write on stdout, or on a temporary file renamed to path
// once complete, so a failed export never leaves a partial file behind.
func writeOutput(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
