package erase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// MemReceipts keeps the newest receipts in this process.
type MemReceipts struct {
	mu      sync.Mutex
	max     int
	order   []string
	byID    map[string]Receipt
	pending map[string][]string
}

// NewMemReceipts keeps at most max receipts.
func NewMemReceipts(max int) *MemReceipts {
	return &MemReceipts{max: max, byID: map[string]Receipt{}, pending: map[string][]string{}}
}

func (m *MemReceipts) PutPending(_ context.Context, tenant, subjectHash string, ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending[tenant+"."+subjectHash] = append([]string(nil), ids...)
	return nil
}

func (m *MemReceipts) Pending(_ context.Context, tenant, subjectHash string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.pending[tenant+"."+subjectHash]...), nil
}

func (m *MemReceipts) DropPending(_ context.Context, tenant, subjectHash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, tenant+"."+subjectHash)
	return nil
}

func (m *MemReceipts) Put(_ context.Context, r Receipt) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byID[r.ID]; !ok {
		m.order = append(m.order, r.ID)
		if len(m.order) > m.max {
			delete(m.byID, m.order[0])
			m.order = m.order[1:]
		}
	}
	m.byID[r.ID] = r.clone()
	return nil
}

func (m *MemReceipts) Get(_ context.Context, tenant, id string) (Receipt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byID[id]
	if !ok || r.Tenant != tenant {
		return Receipt{}, ErrNoReceipt
	}
	return r.clone(), nil
}

// ReceiptBucket is the JetStream key-value bucket of receipts, so any
// query replica reads a receipt another one started.
const ReceiptBucket = "recollect_erasures"

// KVReceipts keeps receipts in a JetStream key-value bucket (keys
// r.<tenant>.<id>), and unfinished purges' memory ids (keys
// p.<tenant>.<subject hash>); they hold ids and counts only.
type KVReceipts struct{ kv jetstream.KeyValue }

// OpenKVReceipts opens (creating if needed) the receipt bucket.
func OpenKVReceipts(ctx context.Context, js jetstream.JetStream) (*KVReceipts, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: ReceiptBucket,
		Description: "erasure receipts: ids and counts only", History: 1, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("open erasure receipt bucket: %w", err)
	}
	return &KVReceipts{kv: kv}, nil
}

func (k *KVReceipts) Put(ctx context.Context, r Receipt) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode receipt %s: %w", r.ID, err)
	}
	if _, err := k.kv.Put(ctx, "r."+r.Tenant+"."+r.ID, data); err != nil {
		return fmt.Errorf("store receipt %s: %w", r.ID, err)
	}
	return nil
}

func (k *KVReceipts) Get(ctx context.Context, tenant, id string) (Receipt, error) {
	e, err := k.kv.Get(ctx, "r."+tenant+"."+id)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrInvalidKey) {
		return Receipt{}, ErrNoReceipt
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("load receipt %s: %w", id, err)
	}
	var r Receipt
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return Receipt{}, fmt.Errorf("decode receipt %s: %w", id, err)
	}
	return r, nil
}

func (k *KVReceipts) PutPending(ctx context.Context, tenant, subjectHash string, ids []string) error {
	data, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("encode pending ids: %w", err)
	}
	if _, err := k.kv.Put(ctx, "p."+tenant+"."+subjectHash, data); err != nil {
		return fmt.Errorf("store pending ids: %w", err)
	}
	return nil
}

func (k *KVReceipts) Pending(ctx context.Context, tenant, subjectHash string) ([]string, error) {
	e, err := k.kv.Get(ctx, "p."+tenant+"."+subjectHash)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load pending ids: %w", err)
	}
	var ids []string
	if err := json.Unmarshal(e.Value(), &ids); err != nil {
		return nil, fmt.Errorf("decode pending ids: %w", err)
	}
	return ids, nil
}

func (k *KVReceipts) DropPending(ctx context.Context, tenant, subjectHash string) error {
	if err := k.kv.Purge(ctx, "p."+tenant+"."+subjectHash); err != nil {
		return fmt.Errorf("drop pending ids: %w", err)
	}
	return nil
}
