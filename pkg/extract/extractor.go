// Package extract is the extractor module: it consumes conversation events,
// turns them into facts (zero-cost rule capture now; per-domain LLM
// extraction in a later stage) and publishes the facts per domain.
package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/extract/rules"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Config of the extractor module.
type Config struct {
	Concurrency    int
	HandlerTimeout time.Duration
	MaxDeliver     int
}

// RegisterFlags adds the extractor flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.Concurrency, prefix+"extractor-concurrency", 8, "conversation events handled at once")
	fs.DurationVar(&c.HandlerTimeout, prefix+"extractor-timeout", 60*time.Second, "time limit for extracting one event")
	fs.IntVar(&c.MaxDeliver, prefix+"extractor-max-deliver", 10, "deliveries of one event before it is dead-lettered")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.Concurrency < 1 {
		return fmt.Errorf("extractor-concurrency must be at least 1 (got %d)", c.Concurrency)
	}
	if c.HandlerTimeout <= 0 {
		return errors.New("extractor-timeout must be positive")
	}
	if c.MaxDeliver < 1 {
		return fmt.Errorf("extractor-max-deliver must be at least 1 (got %d)", c.MaxDeliver)
	}
	return nil
}

// Bus is what the extractor needs of the bus.
type Bus interface {
	PublishBatch(ctx context.Context, ms []bus.Msg) error
	Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error)
}

// Extractor is the extractor module.
type Extractor struct {
	cfg      Config
	bus      Bus
	rules    *rules.Capturer
	log      *slog.Logger
	now      func() time.Time
	consumer *bus.Consumer
	facts    *prometheus.CounterVec
}

// New builds the module.
func New(cfg Config, b Bus, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Extractor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	facts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recollect_extractor_facts_total", Help: "Facts published, by domain and rule."}, []string{"domain", "rule"})
	if reg != nil {
		reg.MustRegister(facts)
	}
	return &Extractor{cfg: cfg, bus: b, rules: rules.New(), log: log, now: now, facts: facts}, nil
}

// Durable is the extractor's consumer name.
const Durable = "extractor"

// Start attaches the durable consumer.
func (x *Extractor) Start(ctx context.Context) error {
	c, err := x.bus.Consume(ctx, bus.ConsumerConfig{
		Durable:        Durable,
		Stream:         bus.StreamConv,
		MaxDeliver:     x.cfg.MaxDeliver,
		HandlerTimeout: x.cfg.HandlerTimeout,
		AckWait:        x.cfg.HandlerTimeout + 5*time.Second,
		Concurrency:    x.cfg.Concurrency,
	}, x.Handle, x.log)
	if err != nil {
		return fmt.Errorf("consume conversations: %w", err)
	}
	x.consumer = c
	return nil
}

// Stop drains in-flight events.
func (x *Extractor) Stop(ctx context.Context) error {
	if x.consumer == nil {
		return nil
	}
	return x.consumer.Stop(ctx)
}

// Handle extracts one conversation event. Fact message ids derive from the
// fact and the event, so a redelivered event publishes nothing new.
func (x *Extractor) Handle(ctx context.Context, d *bus.Delivery) error {
	var e memory.Event
	if err := json.Unmarshal(d.Data, &e); err != nil {
		return bus.Permanent(fmt.Errorf("decode event: %w", err))
	}
	// Agents may publish straight onto the subject: validate here too.
	if err := e.Normalize(x.now()); err != nil {
		return bus.Permanent(fmt.Errorf("invalid event %s: %w", e.ID, err))
	}
	facts := x.Extract(&e)
	if len(facts) == 0 {
		return nil
	}
	msgs := make([]bus.Msg, 0, len(facts))
	for _, f := range facts {
		data, err := json.Marshal(f)
		if err != nil {
			return bus.Permanent(fmt.Errorf("encode fact: %w", err))
		}
		id := f.Memory.ID
		if f.Op == memory.FactFeedback {
			id = "feedback:" + f.Feedback.MemoryID
		}
		msgs = append(msgs, bus.Msg{
			Subject: bus.FactSubject(f.Memory.Domain),
			ID:      id + ":" + bus.EventMsgID(e.Tenant, e.ID),
			Data:    data,
		})
	}
	if err := x.bus.PublishBatch(ctx, msgs); err != nil {
		return fmt.Errorf("publish %d facts of event %s: %w", len(msgs), e.ID, err)
	}
	for _, f := range facts {
		x.facts.WithLabelValues(f.Memory.Domain, f.Rule).Inc()
	}
	x.log.DebugContext(ctx, "extracted", "tenant", e.Tenant, "session", e.SessionID, "facts", len(facts))
	return nil
}

// Extract turns an event into fact messages.
func (x *Extractor) Extract(e *memory.Event) []memory.FactMessage {
	switch e.Type {
	case memory.EventTurn:
		return x.capture(e, memory.SourceRule, []memory.Message{{Role: e.Role, Content: e.Content}})
	case memory.EventCompaction:
		return x.capture(e, memory.SourceCompaction, e.Messages)
	case memory.EventSessionEnd:
		return x.capture(e, memory.SourceExit, e.Messages)
	case memory.EventMemory:
		return []memory.FactMessage{x.explicit(e)}
	case memory.EventFeedback:
		return []memory.FactMessage{{
			Op: memory.FactFeedback, Tenant: e.Tenant, SourceEvent: bus.EventMsgID(e.Tenant, e.ID),
			Feedback: e.Feedback, Memory: memory.Memory{Domain: memory.DomainGeneral}, Rule: "feedback",
		}}
	}
	return nil
}

func (x *Extractor) capture(e *memory.Event, source memory.Source, msgs []memory.Message) []memory.FactMessage {
	var out []memory.FactMessage
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, f := range x.rules.Capture(m.Role, m.Content) {
			mem := x.base(e, f.Content)
			if seen[mem.ID] {
				continue
			}
			seen[mem.ID] = true
			mem.Key = f.Key
			mem.Domain = f.Domain
			mem.Type = f.Type
			mem.Kind = f.Kind
			mem.Importance = f.Importance
			mem.Confidence = f.Confidence
			mem.Evidence = f.Evidence
			mem.Tags = f.Tags
			mem.Source = source
			out = append(out, memory.FactMessage{Op: memory.FactUpsert, Tenant: e.Tenant,
				SourceEvent: bus.EventMsgID(e.Tenant, e.ID), Memory: mem, Rule: f.Rule})
		}
	}
	return out
}

func (x *Extractor) explicit(e *memory.Event) memory.FactMessage {
	in := e.Memory
	mem := x.base(e, in.Content)
	mem.Key = in.Key
	mem.Domain = in.Domain
	mem.Type = in.Type
	mem.Kind = in.Kind
	mem.Importance = float64(in.Type.Priority()) / 4
	if in.Importance != nil {
		mem.Importance = *in.Importance
	}
	mem.Confidence = memory.ConfidenceExplicit
	mem.Tags = in.Tags
	mem.Scope = in.Scope
	mem.Source = memory.SourceAPI
	return memory.FactMessage{Op: memory.FactUpsert, Tenant: e.Tenant, SourceEvent: bus.EventMsgID(e.Tenant, e.ID), Memory: mem, Rule: "api"}
}

func (x *Extractor) base(e *memory.Event, content string) memory.Memory {
	ts := e.TS.UTC()
	return memory.Memory{
		ID:         memory.MemoryID(e.Tenant, e.Namespace, e.Subject, content),
		Tenant:     e.Tenant,
		Namespace:  e.Namespace,
		Subject:    e.Subject,
		Channel:    e.Channel,
		Session:    e.SessionID,
		Content:    content,
		Layer:      memory.LayerBuffer,
		CreatedAt:  ts,
		ModifiedAt: ts,
		ValidFrom:  ts,
		SourceIDs:  []string{bus.EventMsgID(e.Tenant, e.ID)},
	}
}
