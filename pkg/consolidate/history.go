package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// OpenHistory opens (creating if needed) the epoch history bucket, for
// readers outside the consolidator: resume's Recent section counts back
// in epochs.
func OpenHistory(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: StateBucket, Description: "consolidation epoch history per tenant", Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("open epoch history bucket: %w", err)
	}
	return kv, nil
}

// EpochStarts returns when the tenant's last epochs began, oldest first
// (the consolidator keeps the last 16); none when the tenant never had
// one.
func EpochStarts(ctx context.Context, kv jetstream.KeyValue, tenant string) ([]time.Time, error) {
	e, err := kv.Get(ctx, tenant)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read epoch history of %s: %w", tenant, err)
	}
	var st epochState
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return nil, fmt.Errorf("decode epoch history of %s: %w", tenant, err)
	}
	return st.Starts, nil
}
