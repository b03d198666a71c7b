package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
)

// durablePrefix names the endpoints' consumers: webhook_<endpoint id>.
const durablePrefix = "webhook_"

// backlogEvery is how often the backlog gauges are refreshed.
const backlogEvery = 15 * time.Second

// Sender runs one durable consumer per endpoint, following the bucket:
// an endpoint created on any replica starts delivering here, a removed
// one stops and its consumer is deleted.
type Sender struct {
	cfg      Config
	bus      *bus.Bus
	store    *Store
	memories MemoryGetter
	log      *slog.Logger
	now      func() time.Time
	client   *http.Client
	metrics  *metrics

	mu      sync.Mutex
	running map[string]*lane // by bucket key

	watcher jetstream.KeyWatcher
	stop    context.CancelFunc
	done    chan struct{}
}

// lane is one endpoint's consumer and its current settings (a rotation
// changes the secrets without restarting it).
type lane struct {
	mu   sync.Mutex
	ep   Endpoint
	cons *bus.Consumer
}

func (l *lane) endpoint() Endpoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ep
}

// NewSender builds a sender; Start runs it.
func NewSender(cfg Config, b *bus.Bus, st *Store, memories MemoryGetter, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Sender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Sender{cfg: cfg, bus: b, store: st, memories: memories, log: log.With("component", "webhooks"), now: now,
		client: newHTTPClient(cfg), metrics: newMetrics(reg), running: map[string]*lane{}}, nil
}

// Start loads the endpoints, starts their consumers and follows the
// bucket's changes until Stop.
func (s *Sender) Start(ctx context.Context) error {
	// The lanes and the watch outlive ctx (a start-up deadline): they run
	// until Stop.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w, err := s.store.kv.WatchAll(runCtx)
	if err != nil {
		cancel()
		return fmt.Errorf("watch webhook bucket: %w", err)
	}
	s.watcher, s.stop, s.done = w, cancel, make(chan struct{})
	// The loaded set is complete when the watcher sends nil.
	keys := map[string]bool{}
	for entry := range w.Updates() {
		if entry == nil {
			break
		}
		keys[entry.Key()] = true
		s.apply(runCtx, entry)
	}
	s.dropOrphans(ctx, keys)
	go s.follow(runCtx)
	return nil
}

// follow applies the bucket's changes and refreshes the backlog gauges.
func (s *Sender) follow(ctx context.Context) {
	defer close(s.done)
	tick := time.NewTicker(backlogEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case entry, ok := <-s.watcher.Updates():
			if !ok {
				return
			}
			if entry != nil {
				s.apply(ctx, entry)
			}
		case <-tick.C:
			s.refreshBacklog(ctx)
		}
	}
}

// apply starts, updates or stops the lane of one bucket entry.
func (s *Sender) apply(ctx context.Context, entry jetstream.KeyValueEntry) {
	k := entry.Key()
	if entry.Operation() != jetstream.KeyValuePut {
		s.remove(ctx, k)
		return
	}
	var ep Endpoint
	if err := json.Unmarshal(entry.Value(), &ep); err != nil {
		s.log.ErrorContext(ctx, "undecodable webhook entry", "key", k, "error", err)
		return
	}
	s.mu.Lock()
	l, ok := s.running[k]
	s.mu.Unlock()
	if ok {
		l.mu.Lock()
		l.ep = ep
		l.mu.Unlock()
		return
	}
	l = &lane{ep: ep}
	cons, err := s.bus.Consume(ctx, s.consumerConfig(ep), func(ctx context.Context, d *bus.Delivery) error {
		return s.handle(ctx, l, d)
	}, s.log)
	if err != nil {
		s.log.ErrorContext(ctx, "start webhook delivery", "tenant", ep.Tenant, "webhook", ep.ID, "error", err)
		return
	}
	l.cons = cons
	s.mu.Lock()
	s.running[k] = l
	s.mu.Unlock()
}

func (s *Sender) consumerConfig(ep Endpoint) bus.ConsumerConfig {
	handler := 2*s.cfg.Timeout + time.Second // the attempt, and reading the memory it names
	created := ep.Created
	return bus.ConsumerConfig{
		Durable:        durablePrefix + ep.ID,
		Stream:         bus.StreamEvent,
		FilterSubjects: []string{bus.StoredSubject(ep.Tenant), bus.ConsolidatedSubject(ep.Tenant), bus.PurgedSubject(ep.Tenant)},
		StartTime:      &created,
		MaxDeliver:     s.cfg.MaxAttempts,
		HandlerTimeout: handler,
		AckWait:        handler + handler/2,
		Concurrency:    1,
		// One message in flight: the next is not delivered until this one
		// is acknowledged or dead-lettered, so the endpoint sees the
		// tenant's events, and each memory's, in stream order.
		MaxAckPending: 1,
		Backoff:       s.cfg.backoff,
		OnDeadLetter:  func(bus.DeadLetterReason) { s.metrics.dead.WithLabelValues(ep.ID).Inc() },
	}
}

// remove stops an endpoint's lane and deletes its consumer.
func (s *Sender) remove(ctx context.Context, k string) {
	s.mu.Lock()
	l, ok := s.running[k]
	delete(s.running, k)
	s.mu.Unlock()
	_, id, _ := strings.Cut(k, ".")
	if ok {
		if err := l.cons.Stop(ctx); err != nil {
			s.log.WarnContext(ctx, "stop webhook delivery", "webhook", id, "error", err)
		}
	}
	s.deleteConsumer(ctx, durablePrefix+id)
	s.metrics.forget(id)
}

// deleteConsumer deletes an endpoint's consumer after its lane stopped
// (every replica does, so the last one to stop leaves none behind).
func (s *Sender) deleteConsumer(ctx context.Context, durable string) {
	err := s.bus.JetStream().DeleteConsumer(ctx, bus.StreamEvent, durable)
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		s.log.WarnContext(ctx, "delete webhook consumer", "consumer", durable, "error", err)
	}
}

// dropOrphans deletes consumers of endpoints removed while no sender ran.
func (s *Sender) dropOrphans(ctx context.Context, keys map[string]bool) {
	ids := map[string]bool{}
	for k := range keys {
		_, id, _ := strings.Cut(k, ".")
		ids[id] = true
	}
	stream, err := s.bus.JetStream().Stream(ctx, bus.StreamEvent)
	if err != nil {
		s.log.WarnContext(ctx, "list webhook consumers", "error", err)
		return
	}
	names := stream.ConsumerNames(ctx)
	for name := range names.Name() {
		if id, ok := strings.CutPrefix(name, durablePrefix); ok && !ids[id] {
			s.deleteConsumer(ctx, name)
		}
	}
}

// refreshBacklog sets each endpoint's backlog: what its consumer has not
// delivered yet plus what waits for an acknowledgement.
func (s *Sender) refreshBacklog(ctx context.Context) {
	s.mu.Lock()
	lanes := make([]*lane, 0, len(s.running))
	for _, l := range s.running {
		lanes = append(lanes, l)
	}
	s.mu.Unlock()
	for _, l := range lanes {
		id := l.endpoint().ID
		c, err := s.bus.JetStream().Consumer(ctx, bus.StreamEvent, durablePrefix+id)
		if err != nil {
			continue
		}
		info, err := c.Info(ctx)
		if err != nil {
			continue
		}
		s.metrics.backlog.WithLabelValues(id).Set(float64(info.NumPending) + float64(info.NumAckPending))
	}
}

// Stop stops following the bucket and the lanes; what they were sending
// is redelivered later.
func (s *Sender) Stop(ctx context.Context) error {
	if s.stop != nil {
		s.stop()
		_ = s.watcher.Stop()
		<-s.done
	}
	s.mu.Lock()
	lanes := s.running
	s.running = map[string]*lane{}
	s.mu.Unlock()
	var errs []error
	for _, l := range lanes {
		if err := l.cons.Stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// handle delivers one event to one endpoint.
func (s *Sender) handle(ctx context.Context, l *lane, d *bus.Delivery) error {
	ep := l.endpoint()
	if d.Timestamp.Before(ep.Created) {
		return nil // older than the endpoint
	}
	ev, ok, err := toEvent(ctx, d, s.memories)
	if err != nil || !ok || ev.tenant != ep.Tenant || !ep.Wants(ev.payload.Type) {
		return err
	}
	begin := time.Now()
	err = s.post(ctx, ep, ev)
	s.metrics.latency.WithLabelValues(ep.ID).Observe(time.Since(begin).Seconds())
	if err == nil {
		s.metrics.delivered.WithLabelValues(ep.ID).Inc()
		s.log.DebugContext(ctx, "webhook delivered", "tenant", ep.Tenant, "webhook", ep.ID, "type", ev.payload.Type, "webhook_id", ev.id, "attempt", d.NumDelivered)
		return nil
	}
	class := "other"
	var ae *attemptError
	if errors.As(err, &ae) {
		class = ae.class
	}
	s.metrics.failed.WithLabelValues(ep.ID, class).Inc()
	if class == "refused" {
		// The endpoint now resolves to an address the operator refuses:
		// retrying the same host will not change that soon.
		return bus.Permanent(err)
	}
	return err
}
