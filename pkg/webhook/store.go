package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Bucket holds the endpoints, one key <tenant>.<id> each; the value holds
// the signing secrets, so the bucket is as sensitive as the API keys file.
const Bucket = "recollect_webhooks"

// ErrNotFound is returned for an endpoint the tenant does not have.
var ErrNotFound = errors.New("webhook not found")

// maxCAS bounds the read-modify-write retries of one update.
const maxCAS = 16

// Store keeps endpoints in a JetStream key-value bucket.
type Store struct {
	kv jetstream.KeyValue
}

// OpenStore creates the bucket if needed.
func OpenStore(ctx context.Context, js jetstream.JetStream) (*Store, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      Bucket,
		Description: "recollect webhook endpoints and their signing secrets",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("open webhook bucket: %w", err)
	}
	return &Store{kv: kv}, nil
}

func key(tenant, id string) string { return tenant + "." + id }

// Create stores a new endpoint.
func (s *Store) Create(ctx context.Context, e Endpoint) error {
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode webhook %s: %w", e.ID, err)
	}
	if _, err := s.kv.Create(ctx, key(e.Tenant, e.ID), data); err != nil {
		return fmt.Errorf("store webhook %s: %w", e.ID, err)
	}
	return nil
}

// Get reads one endpoint of a tenant.
func (s *Store) Get(ctx context.Context, tenant, id string) (Endpoint, uint64, error) {
	if !validID(id) {
		return Endpoint{}, 0, ErrNotFound
	}
	entry, err := s.kv.Get(ctx, key(tenant, id))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return Endpoint{}, 0, ErrNotFound
	}
	if err != nil {
		return Endpoint{}, 0, fmt.Errorf("read webhook %s: %w", id, err)
	}
	var e Endpoint
	if err := json.Unmarshal(entry.Value(), &e); err != nil {
		return Endpoint{}, 0, fmt.Errorf("decode webhook %s: %w", id, err)
	}
	return e, entry.Revision(), nil
}

// Update applies fn to an endpoint with optimistic concurrency.
func (s *Store) Update(ctx context.Context, tenant, id string, fn func(*Endpoint)) (Endpoint, error) {
	for range maxCAS {
		e, rev, err := s.Get(ctx, tenant, id)
		if err != nil {
			return Endpoint{}, err
		}
		fn(&e)
		data, err := json.Marshal(e)
		if err != nil {
			return Endpoint{}, fmt.Errorf("encode webhook %s: %w", id, err)
		}
		_, err = s.kv.Update(ctx, key(tenant, id), data, rev)
		if err == nil {
			return e, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) { // another writer won: read again
			return Endpoint{}, fmt.Errorf("update webhook %s: %w", id, err)
		}
	}
	return Endpoint{}, fmt.Errorf("update webhook %s: %d concurrent writers in a row", id, maxCAS)
}

// Delete removes an endpoint; ErrNotFound if the tenant has none by id.
func (s *Store) Delete(ctx context.Context, tenant, id string) error {
	if _, _, err := s.Get(ctx, tenant, id); err != nil {
		return err
	}
	if err := s.kv.Purge(ctx, key(tenant, id)); err != nil {
		return fmt.Errorf("delete webhook %s: %w", id, err)
	}
	return nil
}

// List reads a tenant's endpoints ("" lists every tenant's).
func (s *Store) List(ctx context.Context, tenant string) ([]Endpoint, error) {
	filter := ">"
	if tenant != "" {
		filter = tenant + ".>"
	}
	lister, err := s.kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer func() { _ = lister.Stop() }()
	var out []Endpoint
	for k := range lister.Keys() {
		t, id, _ := strings.Cut(k, ".")
		e, _, err := s.Get(ctx, t, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// validID accepts the ids newID makes, so a path value cannot reach the
// bucket as a wildcard or a dotted key.
func validID(id string) bool {
	if !strings.HasPrefix(id, "wh_") || len(id) > 64 {
		return false
	}
	for _, r := range id[3:] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
