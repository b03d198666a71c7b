package bus

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// streamConfigs declares every stream of the pipeline with cfg's limits.
func streamConfigs(cfg Config) []jetstream.StreamConfig {
	base := func(name, desc, prefix string, discard jetstream.DiscardPolicy) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name:        name,
			Description: desc,
			Subjects:    []string{prefix + ">"},
			Retention:   jetstream.LimitsPolicy,
			Storage:     jetstream.FileStorage,
			Replicas:    cfg.Replicas,
			MaxAge:      cfg.MaxAge,
			MaxBytes:    cfg.MaxBytes,
			MaxMsgs:     -1,
			MaxMsgSize:  cfg.MaxMsgSize,
			Discard:     discard,
			Duplicates:  cfg.DuplicateWindow,
		}
	}
	dlq := base(StreamDLQ, "recollect dead letters, one subject per consumer", DLQPrefix, jetstream.DiscardOld)
	// A dead letter is the original message plus headers; it must fit.
	dlq.MaxMsgSize = int32(min(int64(cfg.MaxMsgSize)+dlqHeadroom, cfg.MaxBytes))
	return []jetstream.StreamConfig{
		base(StreamConv, "recollect conversation events, one subject per tenant", ConvPrefix, jetstream.DiscardNew),
		base(StreamFact, "recollect extracted facts, one subject per domain", FactPrefix, jetstream.DiscardNew),
		base(StreamEvent, "recollect stored/consolidated notifications per tenant", EventPrefix, jetstream.DiscardOld),
		dlq,
	}
}

// ensureStreams creates the streams or brings their limits up to date.
func ensureStreams(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	for _, sc := range streamConfigs(cfg) {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("declare stream %s: %w", sc.Name, err)
		}
	}
	return nil
}
