package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/snapshot"
)

// ImportChunkBytes bounds one POST /v1/import of Import: well under the
// server's import limit (32 MiB).
const ImportChunkBytes = 8 << 20

// ExportOptions select what Export streams.
type ExportOptions struct {
	Tenant          string
	NamespacePrefix string // "" = every namespace
	Vectors         bool   // include vectors
}

// Export streams the tenant's memories (GET /v1/export), archived ones
// included, in id order, calling fn for each; it returns how many it read.
// A stream without the server's completion trailer is an error, so a
// truncated export is never taken for a whole one.
func (c *Client) Export(ctx context.Context, opts ExportOptions, fn func(memory.Memory) error) (int, error) {
	q := tenantQuery(c.tenantOr(opts.Tenant))
	if opts.NamespacePrefix != "" {
		q.Set("namespace_prefix", opts.NamespacePrefix)
	}
	if opts.Vectors {
		q.Set("vectors", "true")
	}
	resp, err := c.send(ctx, call{method: http.MethodGet, path: "/v1/export", query: q, idempotent: true}, "", nil)
	if err != nil {
		return 0, fmt.Errorf("export memories: %w", err)
	}
	defer resp.Body.Close()
	rd := snapshot.NewReader(resp.Body, 0)
	n := 0
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("export memories: read line %d: %w", rd.Line(), err)
		}
		if err := fn(m); err != nil {
			return n, err
		}
		n++
	}
	if msg := resp.Trailer.Get(api.ExportErrorTrailer); msg != "" {
		return n, fmt.Errorf("export memories: the server stopped after %d: %s", n, msg)
	}
	sent, err := strconv.Atoi(resp.Trailer.Get(api.ExportCountTrailer))
	if err != nil || sent != n {
		return n, fmt.Errorf("export memories: stream truncated after %d memories (server count %q)", n, resp.Trailer.Get(api.ExportCountTrailer))
	}
	return n, nil
}

// Import sends an NDJSON stream of memories (POST /v1/import) for the
// tenant, in parts of at most ImportChunkBytes, and sums the answers. Each
// part is validated whole by the server and written only when all of its
// lines are good; a rejected part stops the import, with the bad lines in
// the returned summary's Errors numbered as lines of r, and an *Error.
// Parts before it stay imported; importing the same stream again is safe.
// Check the stream first (snapshot.Check) to make the whole import all or
// nothing.
func (c *Client) Import(ctx context.Context, tenant string, r io.Reader) (api.ImportResponse, error) {
	return c.ImportWith(ctx, tenant, r, ImportOptions{})
}

// ImportOptions tune ImportWith.
type ImportOptions struct {
	// PartLines bounds the lines of one part too (0: parts are bounded by
	// ImportChunkBytes only): smaller parts report progress more often.
	PartLines int
	// Progress, when set, is called after each part the server stored,
	// with the totals so far.
	Progress func(soFar api.ImportResponse)
}

// ImportWith is Import with options: parts of at most opts.PartLines lines,
// and opts.Progress told after each part.
func (c *Client) ImportWith(ctx context.Context, tenant string, r io.Reader, opts ImportOptions) (api.ImportResponse, error) {
	total := api.ImportResponse{Errors: []api.LineError{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var part bytes.Buffer
	first, line := 1, 0 // first line of the part, last line read
	flush := func() error {
		if part.Len() == 0 {
			return nil
		}
		resp, err := c.importPart(ctx, tenant, part.Bytes(), first-1)
		total.Imported += resp.Imported
		total.Skipped += resp.Skipped
		total.Errors = append(total.Errors, resp.Errors...)
		part.Reset()
		first = line + 1
		if err == nil && opts.Progress != nil {
			opts.Progress(total)
		}
		return err
	}
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 {
			line++
			if len(bytes.TrimRight(raw, "\r\n")) > snapshot.MaxLineBytes {
				return total, fmt.Errorf("import memories: %w", &snapshot.TooLongError{Line: line, Limit: snapshot.MaxLineBytes})
			}
			if part.Len()+len(raw) > ImportChunkBytes || opts.PartLines > 0 && line-first >= opts.PartLines {
				line-- // the line read belongs to the next part
				if ferr := flush(); ferr != nil {
					return total, ferr
				}
				line++
			}
			part.Write(raw)
		}
		if errors.Is(err, io.EOF) {
			return total, flush()
		}
		if err != nil {
			return total, fmt.Errorf("import memories: read line %d: %w", line+1, err)
		}
	}
}

// importPart sends one part whose first line is line offset+1 of the
// input, renumbering the lines of a rejection.
func (c *Client) importPart(ctx context.Context, tenant string, body []byte, offset int) (api.ImportResponse, error) {
	cl := call{method: http.MethodPost, path: "/v1/import", query: tenantQuery(c.tenantOr(tenant)), idempotent: true}
	resp, err := c.send(ctx, cl, api.NDJSONContentType, body)
	var out api.ImportResponse
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusBadRequest && apiErr.body != nil {
		if json.Unmarshal(apiErr.body, &out) == nil {
			for i := range out.Errors {
				out.Errors[i].Line += offset
			}
			if len(out.Errors) > 0 {
				apiErr.Field = fmt.Sprintf("line %d", out.Errors[0].Line)
			}
			if offset > 0 {
				apiErr.Message += fmt.Sprintf(" (lines counted from line %d of the input)", offset+1)
			}
		}
		out.Imported, out.Skipped = 0, 0
		return out, fmt.Errorf("import memories: %w", err)
	}
	if err != nil {
		return out, fmt.Errorf("import memories: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, fmt.Errorf("decode answer of POST /v1/import: %w", err)
	}
	return out, nil
}
