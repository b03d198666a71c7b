// Package deploytest is the end-to-end scenario of the opt-in deployment
// tests (./deploy on a Kubernetes cluster, ./test/compose on a Docker
// engine): against a deployed Recollect, post one turn and recall the
// memory it leaves.
package deploytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Tenant is the tenant the scenario's key is bound to.
const Tenant = "acme"

// turn states a preference the rule capture keeps without an LLM.
const turn = "I prefer tabs over spaces, and always run make test before committing"

// NewKey returns a fresh API key and the RECOLLECT_API_KEYS value binding
// it to Tenant.
func NewKey() (key, setting string, err error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("generate an API key: %w", err)
	}
	key = "k-" + hex.EncodeToString(b)
	return key, key + "=" + Tenant, nil
}

// Suffix returns n random hex characters, for namespace and project names.
func Suffix(n int) (string, error) {
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a name suffix: %w", err)
	}
	return hex.EncodeToString(b)[:n], nil
}

// RememberAndRecall posts a turn to ingestURL and polls recall on queryURL
// (the same URL for a single process) until the turn's preference is the
// top memory, or ctx ends. poll is the wait between recalls.
func RememberAndRecall(ctx context.Context, ingestURL, queryURL, key string, poll time.Duration) (client.RecallResponse, error) {
	ing := client.New(ingestURL, client.WithAPIKey(key), client.WithTenant(Tenant), client.WithRetries(10))
	ev := memory.Event{ID: "deploytest-turn-1", Type: memory.EventTurn, SessionID: "s1", Subject: "alice", Role: "user", Content: turn}
	accepted, err := ing.Ingest(ctx, ev)
	if err != nil {
		return client.RecallResponse{}, fmt.Errorf("post the event to %s: %w", ingestURL, err)
	}
	if accepted.Accepted != 1 {
		return client.RecallResponse{}, fmt.Errorf("post the event to %s: accepted %d of 1", ingestURL, accepted.Accepted)
	}
	q := client.New(queryURL, client.WithAPIKey(key), client.WithTenant(Tenant), client.WithRetries(3))
	var last error
	for {
		resp, err := q.Recall(ctx, client.RecallRequest{Query: "how should I indent code?"})
		switch {
		case err != nil:
			last = fmt.Errorf("recall on %s: %w", queryURL, err)
		case len(resp.Memories) == 0:
			last = fmt.Errorf("recall on %s: no memories yet", queryURL)
		case !strings.Contains(strings.ToLower(resp.Memories[0].Memory.Content), "tabs"):
			last = fmt.Errorf("recall on %s: the top memory is %q, not the tabs preference", queryURL, resp.Memories[0].Memory.Content)
		default:
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return client.RecallResponse{}, fmt.Errorf("%w (gave up: %v)", last, ctx.Err())
		case <-time.After(poll):
		}
	}
}
