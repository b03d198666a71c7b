package extract

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// HoldsSubject reports whether the (opened) value under key, in the session or
// style bucket, holds what subject said in tenant: a session buffer of
// the subject's conversation, or the subject's style observations in one
// of namespaces. An erasure deletes those entries.
func HoldsSubject(key string, value []byte, tenant, subject string, namespaces []string) bool {
	switch {
	case strings.HasPrefix(key, sessionPrefix+tenant+"."):
		var s session
		return json.Unmarshal(value, &s) == nil && s.Tenant == tenant && s.Subject == subject
	case strings.HasPrefix(key, stylePrefix+tenant+"."):
		return slices.ContainsFunc(namespaces, func(ns string) bool { return key == stateKey(stylePrefix, tenant, ns, subject) })
	}
	return false
}

// Sealer opens the extractor's sealed bucket entries and shreds their
// keys: what an erasure needs of the extractor's state.
type Sealer struct{ keys *keyring }

// OpenSealer opens the key stream (creating it if no extractor did yet).
func OpenSealer(ctx context.Context, js jetstream.JetStream, now func() time.Time) (*Sealer, error) {
	k, err := openKeyring(ctx, js, now)
	if err != nil {
		return nil, err
	}
	return &Sealer{keys: k}, nil
}

// Open returns the plain value of a bucket entry and whether it was
// sealed; plain is nil (and err nil) when its key is gone already.
func (s *Sealer) Open(ctx context.Context, key string, value []byte) (plain []byte, sealed bool, err error) {
	plain, sealed, err = s.keys.open(ctx, key, value)
	if errors.Is(err, errNoKey) {
		return nil, true, nil
	}
	return plain, sealed, err
}

// Shred securely deletes the entry's key.
func (s *Sealer) Shred(ctx context.Context, key string) error { return s.keys.shred(ctx, key) }
