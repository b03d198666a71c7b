package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// defaultProbeURL is the readiness endpoint of a process on the default
// port, seen from inside its own container.
const defaultProbeURL = "http://127.0.0.1:7700/readyz"

// newHealthcheckCmd probes a URL and exits non-zero unless it answers 2xx:
// a container healthcheck for images without a shell or curl (Recollect's
// own, and any other service's HTTP health endpoint).
func newHealthcheckCmd() *cobra.Command {
	var url string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "GET a health URL (default: this process's /readyz) and fail unless it answers 2xx",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().StringVar(&url, "url", defaultProbeURL, "URL to probe")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long the probe may take")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if timeout <= 0 {
			return fmt.Errorf("timeout must be positive (got %s)", timeout)
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
		defer cancel()
		return probe(ctx, url)
	}
	return cmd
}

// probe GETs url and returns nil on a 2xx answer, else an error naming the
// URL and the status with the start of the body (readiness says why).
func probe(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: build request for %q: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("healthcheck %s: status %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}
