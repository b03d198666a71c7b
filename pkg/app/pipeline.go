package app

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/web"
)

// maxDeadLetters bounds the dead letters GET /v1/pipeline reads back.
const maxDeadLetters = 50

// pipelineTimeout bounds the JetStream calls of one answer.
const pipelineTimeout = 5 * time.Second

// pipeline answers GET /v1/pipeline for admin keys: this process's
// readiness and modules, every stream's size, every durable consumer's
// backlog (whichever process runs it: they are read from JetStream) and
// the newest dead letters with their reasons.
func (a *App) pipeline(w http.ResponseWriter, r *http.Request) {
	if p, ok := auth.FromContext(r.Context()); ok && !p.Admin {
		web.WriteError(w, http.StatusForbidden, "forbidden", errors.New("GET /v1/pipeline needs an admin key"))
		return
	}
	resp := api.Pipeline{Modules: []api.ModuleState{}, Streams: []api.StreamState{}, Consumers: []api.ConsumerLag{}, DeadLetters: []api.DeadLetter{}}
	if err := a.ready(); err != nil {
		resp.ReadyError = err.Error()
	} else {
		resp.Ready = true
	}
	running := a.mods.Running()
	if order, err := a.mods.Order(a.cfg.Targets); err == nil {
		for _, name := range order {
			if !a.mods.Group(name) {
				resp.Modules = append(resp.Modules, api.ModuleState{Name: name, Running: slices.Contains(running, name)})
			}
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), pipelineTimeout)
	defer cancel()
	js := a.bus.JetStream()
	for _, name := range []string{bus.StreamConv, bus.StreamFact, bus.StreamEvent, bus.StreamDLQ} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			continue // not created in this deployment (yet)
		}
		info, err := s.Info(ctx)
		if err != nil {
			web.Unavailable(w, web.RetryAfter, err)
			return
		}
		resp.Streams = append(resp.Streams, api.StreamState{Stream: name, Messages: info.State.Msgs, Bytes: info.State.Bytes})
		consumers := s.ListConsumers(ctx)
		for c := range consumers.Info() {
			resp.Consumers = append(resp.Consumers, api.ConsumerLag{Stream: name, Consumer: c.Name, Pending: c.NumPending,
				AckPending: c.NumAckPending, Redelivered: c.NumRedelivered})
		}
		if name == bus.StreamDLQ {
			resp.DeadLetters = deadLetters(ctx, s, info)
		}
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

// deadLetters reads the newest dead letters back, newest first.
func deadLetters(ctx context.Context, s jetstream.Stream, info *jetstream.StreamInfo) []api.DeadLetter {
	out := []api.DeadLetter{}
	// Deleted messages in between are skipped; the reads stay bounded.
	for seq, tries := info.State.LastSeq, 0; seq >= max(info.State.FirstSeq, 1) && len(out) < maxDeadLetters && tries < 4*maxDeadLetters; seq, tries = seq-1, tries+1 {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted or expired
		}
		out = append(out, api.DeadLetter{Time: m.Time, Subject: m.Header.Get(bus.HeaderDLQSubject), Consumer: m.Header.Get(bus.HeaderDLQConsumer),
			Reason: m.Header.Get(bus.HeaderDLQReason), Deliveries: m.Header.Get(bus.HeaderDLQDeliveries),
			Stream: m.Header.Get(bus.HeaderDLQStream), StreamSeq: m.Header.Get(bus.HeaderDLQStreamSeq)})
	}
	return out
}
