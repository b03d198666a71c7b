package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
)

// maxReportedErrors is how many bad lines a failed import prints.
const maxReportedErrors = 20

func newImportCmd() *cobra.Command {
	var (
		f      clientFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import memories into a tenant: NDJSON from recollect export, or Bernard's memories.json (--format bernard)",
		Long: "Import memories into a tenant. Records are stored under the tenant of --tenant (or the API key), whatever the file " +
			"says; the whole file is checked first and nothing is sent when a line is bad. Importing the same file again is safe: " +
			"records are written by id, unchanged ones are skipped.",
		Example: `  recollect import --tenant acme acme.ndjson
  recollect import --tenant me --format bernard ~/.bernard/rag/memories.json`,
		Args: cobra.ExactArgs(1),
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringVar(&format, "format", "recollect", "recollect (NDJSON of GET /v1/export) or bernard (Bernard's memories.json)")
	fs.Lookup("namespace").Usage = "store every record under this namespace (default: each record's own; bernard: default)"
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if format != "recollect" && format != "bernard" {
			return fmt.Errorf("--format must be recollect or bernard (got %q)", format)
		}
		c, ctx, cancel, err := f.start(cmd, transferTime)
		if err != nil {
			return err
		}
		defer cancel()
		c = c.WithOptions(client.WithHTTPClient(&http.Client{})) // the deadline is ctx's
		body, err := importBody(args[0], format, f.namespace)
		if err != nil {
			return err
		}
		defer body.Close()
		n, bad, err := snapshot.Check(body, maxReportedErrors, time.Now())
		if err != nil || len(bad) > 0 {
			return badFile(cmd.ErrOrStderr(), args[0], lineErrors(bad), err)
		} else if n == 0 {
			return fmt.Errorf("%s holds no memories", args[0])
		}
		if _, err := body.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("reread %s: %w", args[0], err)
		}
		// The bar counts memories the server has stored (embedding is most
		// of an import), part by part.
		bar := newProgress(cmd.ErrOrStderr(), int64(n), "importing", "memories")
		resp, err := c.ImportWith(ctx, "", body, client.ImportOptions{PartLines: importPartLines(n),
			Progress: func(soFar client.ImportResponse) { bar.Set(soFar.Imported + soFar.Skipped) }})
		bar.End()
		if err != nil {
			if len(resp.Errors) > 0 {
				_ = badFile(cmd.ErrOrStderr(), args[0], resp.Errors, nil)
			}
			return fmt.Errorf("%w (%d imported before the failure; importing the file again is safe)", err, resp.Imported)
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "imported %d memories, skipped %d unchanged\n", resp.Imported, resp.Skipped)
		return nil
	}
	return cmd
}

// importPartLines sizes an import's parts so that the bar moves about 20
// times, in parts of at least 100 memories.
func importPartLines(n int) int { return max(100, (n+19)/20) }

// seekCloser is the file, or a temporary file of the converted Bernard
// file.
type seekCloser interface {
	io.ReadSeeker
	io.Closer
}

// tempFile is a temporary file removed on Close.
type tempFile struct{ *os.File }

func (t tempFile) Close() error { return errors.Join(t.File.Close(), os.Remove(t.Name())) }

// importBody opens the file as an NDJSON stream of memories. A Bernard
// file is converted entry by entry into a temporary file, so neither is
// held in memory.
func importBody(path, format, namespace string) (seekCloser, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if format == "recollect" {
		if namespace == "" {
			return file, nil
		}
		defer file.Close()
		return withNamespace(path, file, namespace)
	}
	defer file.Close()
	tmp, err := os.CreateTemp("", "recollect-bernard-*.ndjson")
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", path, err)
	}
	out := tempFile{tmp}
	bw := bufio.NewWriterSize(tmp, 64<<10)
	enc := json.NewEncoder(bw)
	err = snapshot.BernardEach(file, snapshot.BernardOptions{Namespace: namespace, Now: time.Now()},
		func(m memory.Memory) error { return enc.Encode(m) })
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// badFile prints the bad lines and returns the error that stops the import.
func badFile(w io.Writer, path string, bad []client.LineError, err error) error {
	for _, le := range bad {
		fmt.Fprintf(w, "%s:%s\n", path, le.Error())
	}
	if err != nil {
		return fmt.Errorf("%s: %w; nothing imported", path, err)
	}
	return fmt.Errorf("%s has bad lines (%d shown); nothing imported", path, len(bad))
}

// withNamespace copies an NDJSON export into a temporary file with every
// record's namespace set to namespace (--namespace): only that field
// changes, every other is copied as it is. A line that is not a JSON
// object is copied unchanged for snapshot.Check to report.
func withNamespace(path string, r io.Reader, namespace string) (seekCloser, error) {
	if !memory.ValidNamespace(namespace) {
		return nil, fmt.Errorf("--namespace %q: must be 1-64 characters of [A-Za-z0-9_./:-]", namespace)
	}
	tmp, err := os.CreateTemp("", "recollect-import-*.ndjson")
	if err != nil {
		return nil, fmt.Errorf("set the namespace of %s: %w", path, err)
	}
	out := tempFile{tmp}
	ns, _ := json.Marshal(namespace)
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(tmp, 64<<10)
	for err == nil {
		var line []byte
		line, err = br.ReadBytes('\n')
		if len(line) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) == nil && rec != nil {
			rec["namespace"] = ns
			var b []byte
			if b, err = json.Marshal(rec); err != nil {
				break
			}
			line = append(b, '\n')
		}
		if _, werr := bw.Write(line); werr != nil {
			err = werr
		}
	}
	if errors.Is(err, io.EOF) {
		err = bw.Flush()
	}
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("set the namespace of %s: %w", path, err)
	}
	return out, nil
}

// lineErrors are a local check's bad lines as the server reports them.
func lineErrors(bad []snapshot.LineError) []client.LineError {
	out := make([]client.LineError, len(bad))
	for i, e := range bad {
		out[i] = client.LineError{Line: e.Line, Field: e.Field, Message: e.Message}
	}
	return out
}
