package embedder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// ReindexRequest asks the embedder to move a tenant to the configured
// embedding model. ID names the request: a resend with the same id is one
// request (the stream's duplicate window).
type ReindexRequest struct {
	Tenant string `json:"tenant"`
	ID     string `json:"id"`
}

// ReindexDurable is the consumer name of reindex requests.
const ReindexDurable = "embedder-reindex"

// reindexMaxDeliver is how often a reindex request is tried before it is
// given up (and recorded failed).
const reindexMaxDeliver = 20

// reindexLease is how long a reindex owns its tenant without renewing; it
// renews after every batch.
const reindexLease = 2 * time.Minute

// Publisher publishes onto the bus.
type Publisher interface {
	Publish(ctx context.Context, m bus.Msg) error
}

// RequestReindex publishes a reindex request for a tenant.
func RequestReindex(ctx context.Context, p Publisher, tenant, id string) error {
	if !memory.ValidTenant(tenant) || id == "" {
		return fmt.Errorf("reindex request needs a valid tenant and id (got %q, %q): %w", tenant, id, memory.ErrInvalid)
	}
	data, err := json.Marshal(ReindexRequest{Tenant: tenant, ID: id})
	if err != nil {
		return fmt.Errorf("encode reindex request: %w", err)
	}
	if err := p.Publish(ctx, bus.Msg{Subject: bus.ReindexSubject(tenant), ID: "reindex:" + tenant + ":" + id, Data: data}); err != nil {
		return fmt.Errorf("publish reindex request for %s: %w", tenant, err)
	}
	return nil
}

// startReindex attaches the reindex request consumer. One request runs at
// a time per process and, through the lease, per tenant across processes.
func (e *Embedder) startReindex(ctx context.Context) error {
	c, err := e.bus.Consume(ctx, bus.ConsumerConfig{
		Durable:        ReindexDurable,
		Stream:         bus.StreamEvent,
		FilterSubjects: []string{bus.ReindexSubject("*")},
		MaxDeliver:     reindexMaxDeliver,
		HandlerTimeout: e.cfg.ReindexTimeout,
		AckWait:        e.cfg.ReindexTimeout + time.Minute,
		Concurrency:    1,
	}, e.HandleReindex, e.log)
	if err != nil {
		return fmt.Errorf("consume reindex requests: %w", err)
	}
	e.reindexC = c
	return nil
}

// HandleReindex runs one reindex request. A run that stops half-way (a
// crash, the time limit, a failed write) is redelivered and continues where
// the store says it stopped: every step is decided by the memories' state,
// not by the run. A delivery that fails is recorded queued with its reason
// while a retry is due, failed when none is.
func (e *Embedder) HandleReindex(ctx context.Context, d *bus.Delivery) error {
	var req ReindexRequest
	if err := json.Unmarshal(d.Data, &req); err != nil {
		return bus.Permanent(fmt.Errorf("decode reindex request: %w", err))
	}
	if !memory.ValidTenant(req.Tenant) || req.ID == "" {
		return bus.Permanent(fmt.Errorf("reindex request needs a valid tenant and id (got %q, %q)", req.Tenant, req.ID))
	}
	err := e.handleReindex(ctx, d, req)
	if err != nil {
		e.reindexSettled(ctx, req.Tenant, req.ID, err, bus.IsPermanent(err) || d.NumDelivered >= reindexMaxDeliver)
	}
	return err
}

func (e *Embedder) handleReindex(ctx context.Context, d *bus.Delivery, req ReindexRequest) error {
	lease, err := e.locks.Acquire(ctx, "reindex:"+req.Tenant, reindexLease)
	if errors.Is(err, lock.ErrHeld) {
		// Another worker is reindexing the tenant; come back later.
		return fmt.Errorf("reindex tenant %s: %w", req.Tenant, err)
	}
	if err != nil {
		return fmt.Errorf("lease reindex of tenant %s: %w", req.Tenant, err)
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	progress := func() error {
		_ = d.InProgress() // a lost heartbeat only risks a redelivery, which continues
		if err := lease.Renew(ctx, reindexLease); err != nil {
			return fmt.Errorf("renew reindex lease of tenant %s: %w", req.Tenant, err)
		}
		return nil
	}
	return e.Reindex(ctx, req.Tenant, req.ID, progress)
}
