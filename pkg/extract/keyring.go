package extract

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// KeyStream holds the data keys that seal the extractor's bucket entries,
// one key per entry, written once. A KV bucket cannot securely delete what
// it held (its stream denies deletes, and every update leaves the previous
// revision's bytes in its files until a compaction), so a subject's words
// are never written to a bucket in the clear: an erasure securely deletes
// the entry's key here (JetStream overwrites it in its files) and every
// revision of the entry, current or left on disk, becomes unreadable
// (crypto-shredding).
const KeyStream = "RECOLLECT_EXTRACT_KEYS"

// keySubjects is the key stream's subject space: one subject per entry.
const keySubjects = "recollect.extract.keys."

// sealMarker starts a sealed value; a value starting with '{' is JSON
// written before sealing (read as is, and sealed on its next write).
const sealMarker = 'S'

// keyCacheMax bounds the keys kept in memory; the cache is emptied past it.
const keyCacheMax = 8192

// orphanAge is how old a key must be before the sweep may delete it when
// its entry is gone: a writer that just made a key has written its entry
// long before.
const orphanAge = time.Hour

// errNoKey: the entry's key is gone (an erasure shredded it, or the sweep
// found the entry gone): what it sealed cannot be read again.
var errNoKey = errors.New("the entry's key is gone")

// keyring makes, finds and shreds the entry keys.
type keyring struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	now    func() time.Time

	mu    sync.Mutex
	cache map[string][]byte
}

// openKeyring creates or updates the key stream. Deletes are allowed (an
// erasure needs them) and no limit ever removes a key without overwriting
// it: a key goes only by a secure delete.
func openKeyring(ctx context.Context, js jetstream.JetStream, now func() time.Time) (*keyring, error) {
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        KeyStream,
		Description: "recollect extractor: the data keys sealing session buffers and style observations (an erasure shreds them)",
		Subjects:    []string{keySubjects + ">"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardNew,
		AllowDirect: true,
	})
	if err != nil {
		return nil, fmt.Errorf("open key stream %s: %w", KeyStream, err)
	}
	return &keyring{js: js, stream: st, now: now, cache: map[string][]byte{}}, nil
}

func keySubject(entry string) string { return keySubjects + entry }

// key returns the entry's key; with create it makes one when there is
// none (once: a writer that loses the race reads the winner's).
func (k *keyring) key(ctx context.Context, entry string, create bool) ([]byte, error) {
	k.mu.Lock()
	v, ok := k.cache[entry]
	k.mu.Unlock()
	if ok {
		return v, nil
	}
	for range 2 {
		m, err := k.stream.GetLastMsgForSubject(ctx, keySubject(entry))
		switch {
		case err == nil:
			k.remember(entry, m.Data)
			return m.Data, nil
		case !errors.Is(err, jetstream.ErrMsgNotFound):
			return nil, fmt.Errorf("read the key of %s: %w", entry, err)
		case !create:
			return nil, errNoKey
		}
		fresh := make([]byte, 32)
		_, _ = rand.Read(fresh)
		_, err = k.js.Publish(ctx, keySubject(entry), fresh,
			jetstream.WithExpectStream(KeyStream), jetstream.WithExpectLastSequencePerSubject(0))
		if err == nil {
			k.remember(entry, fresh)
			return fresh, nil
		}
		var apiErr *jetstream.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence {
			return nil, fmt.Errorf("write the key of %s: %w", entry, err)
		}
		// Another writer made it first: read theirs.
	}
	return nil, fmt.Errorf("write the key of %s: another writer keeps making it", entry)
}

func (k *keyring) remember(entry string, v []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.cache) >= keyCacheMax {
		clear(k.cache)
	}
	k.cache[entry] = v
}

// seal encrypts plain for entry (AES-256-GCM, the entry's name as
// associated data: a value cannot be moved to another entry).
func (k *keyring) seal(ctx context.Context, entry string, plain []byte) ([]byte, error) {
	key, err := k.key(ctx, entry, true)
	if err != nil {
		return nil, err
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = sealMarker
	_, _ = rand.Read(out[1:])
	return aead.Seal(out, out[1:], plain, []byte(entry)), nil
}

// open decrypts a value of entry; a value written before sealing is
// returned as is, with sealed false. errNoKey says the key is gone.
func (k *keyring) open(ctx context.Context, entry string, value []byte) (plain []byte, sealed bool, err error) {
	if len(value) == 0 || value[0] != sealMarker {
		return value, false, nil
	}
	key, err := k.key(ctx, entry, false)
	if err != nil {
		return nil, true, err
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, true, err
	}
	if len(value) < 1+aead.NonceSize() {
		return nil, true, fmt.Errorf("open %s: sealed value too short", entry)
	}
	plain, err = aead.Open(nil, value[1:1+aead.NonceSize()], value[1+aead.NonceSize():], []byte(entry))
	if err != nil {
		return nil, true, fmt.Errorf("open %s: %w", entry, err)
	}
	return plain, true, nil
}

// shred securely deletes the entry's key: what it sealed, in any revision
// left in a bucket's files, cannot be read again.
func (k *keyring) shred(ctx context.Context, entry string) error {
	k.mu.Lock()
	delete(k.cache, entry)
	k.mu.Unlock()
	for {
		m, err := k.stream.GetLastMsgForSubject(ctx, keySubject(entry))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find the key of %s: %w", entry, err)
		}
		if err := k.stream.SecureDeleteMsg(ctx, m.Sequence); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			return fmt.Errorf("shred the key of %s: %w", entry, err)
		}
	}
}

// keyInfo is a key's age, for the sweep.
func (k *keyring) made(ctx context.Context, entry string) (time.Time, bool, error) {
	m, err := k.stream.GetLastMsgForSubject(ctx, keySubject(entry))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("find the key of %s: %w", entry, err)
	}
	return m.Time, true, nil
}

// entries lists the entries that have a key.
func (k *keyring) entries(ctx context.Context) ([]string, error) {
	info, err := k.stream.Info(ctx, jetstream.WithSubjectFilter(keySubjects+">"))
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	out := make([]string, 0, len(info.State.Subjects))
	for s := range info.State.Subjects {
		out = append(out, s[len(keySubjects):])
	}
	return out, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("entry key: %w", err)
	}
	return cipher.NewGCM(b)
}
