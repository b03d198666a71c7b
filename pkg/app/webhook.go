package app

import (
	"context"
	"encoding/json"

	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/webhook"
)

// initWebhooks mounts /v1/webhooks and starts the sender, as part of the
// query module (docs/ARCHITECTURE.md, "Webhooks"); the returned stop ends
// the sender before the store and the bus close.
func (a *App) initWebhooks(ctx context.Context) (stop func(context.Context) error, err error) {
	st, err := webhook.OpenStore(ctx, a.bus.JetStream())
	if err != nil {
		return nil, err
	}
	webhook.NewAPI(a.cfg.Webhook, st, auth.Tenant, a.log, a.now).Routes(a.web.Handle)
	s, err := webhook.NewSender(a.cfg.Webhook, a.bus, st, a.store, a.reg, a.log, a.now)
	if err != nil {
		return nil, err
	}
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s.Stop, nil
}

// announcePurge publishes a finished purge's receipt (never its subject)
// on the event stream, where webhooks pick it up as purge.completed.
func (a *App) announcePurge(ctx context.Context, r erase.Receipt) {
	ev := memory.PurgedEvent{Tenant: r.Tenant, Receipt: r.ID, State: r.State}
	if r.Finished != nil {
		ev.Finished = *r.Finished
	}
	data, err := json.Marshal(ev)
	if err == nil {
		err = a.bus.Publish(ctx, bus.Msg{Subject: bus.PurgedSubject(r.Tenant), ID: "purged:" + r.Tenant + ":" + r.ID, Data: data})
	}
	if err != nil {
		a.log.WarnContext(ctx, "announce a finished purge", "tenant", r.Tenant, "receipt", r.ID, "error", err)
	}
}
