package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
)

// TestStoreDownIsRetried503 runs the query and ingest modules over the
// remote store with no store server: every read answers 503 with
// Retry-After (ErrUnavailable), and the client resends the idempotent ones.
func TestStoreDownIsRetried503(t *testing.T) {
	a := clienttest.Start(t, func(cfg *app.Config) {
		cfg.Targets = []string{"ingest", "query"}
		cfg.StoreBackend = app.StoreRemote
	})
	ctx := context.Background()
	for name, call := range map[string]func(*Client) error{
		"recall": func(c *Client) error {
			_, err := c.Recall(ctx, RecallRequest{Tenant: "acme", Query: "tabs"})
			return err
		},
		"list": func(c *Client) error {
			_, err := c.ListMemories(ctx, ListOptions{Tenant: "acme"})
			return err
		},
		"get": func(c *Client) error {
			_, err := c.GetMemory(ctx, "acme", "m1")
			return err
		},
		"stats": func(c *Client) error {
			_, err := c.Stats(ctx, "acme")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			var rec sleeps
			c := New(a.Web().URL(), WithRetries(2))
			c.sleep = rec.sleep
			err := call(c)
			var apiErr *Error
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusServiceUnavailable || apiErr.RetryAfter <= 0 || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("%v, want 503 unavailable with Retry-After", err)
			}
			if w := rec.take(); len(w) != 2 || w[0] != apiErr.RetryAfter {
				t.Fatalf("waits %v, want 2 retries after Retry-After %s", w, apiErr.RetryAfter)
			}
		})
	}
}
