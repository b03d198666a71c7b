package extract

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
)

// A session buffer is sealed: its words are in no file of the bus, and a
// shredded key makes every revision unreadable, so the next write starts
// the entry again.
func TestSessionBufferSealedAndShredded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	h := newHarness(t, harnessOpts{bus: b})
	const words = "my locker code is 4471 and my cat is Biscuit"
	h.mustHandle(h.turn("t1", "user", words))
	h.mustHandle(h.turn("t2", "user", "I moved to Tallinn in March"))
	s, ok := h.session("s1")
	if !ok || len(s.Turns) != 2 || s.Turns[0].Content != words {
		t.Fatalf("session buffer: ok %v %+v", ok, s)
	}
	if f := filesWith(t, dir, "KV_"+SessionBucket, "Biscuit"); len(f) > 0 {
		t.Fatalf("a session buffer's words are in the bucket's files: %v", f)
	}
	key := sessionKey("acme", "default", "s1")
	e, err := h.x.sessions.kv.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if e.Value()[0] != sealMarker {
		t.Fatalf("the entry is not sealed: %q", e.Value()[:min(16, len(e.Value()))])
	}

	if err := h.x.sessions.keys.shred(ctx, key); err != nil {
		t.Fatal(err)
	}
	h.x.sessions.keys.cache = map[string][]byte{} // a process that never saw the key
	if _, ok := h.session("s1"); ok {
		t.Fatal("a shredded entry still reads")
	}
	if _, err := h.x.sessions.keys.key(ctx, key, false); err == nil {
		t.Fatal("the shredded key is still in the key stream")
	}
	h.mustHandle(h.turn("t3", "user", "I prefer tea over coffee"))
	s, ok = h.session("s1")
	if !ok || len(s.Turns) != 1 || s.Turns[0].ID != "t3" {
		t.Fatalf("after the shred the entry starts again with the new turn: ok %v %+v", ok, s.Turns)
	}
}

// Writers racing to make an entry's key agree on one key.
func TestKeyMadeOnce(t *testing.T) {
	b := openBus(t)
	ctx := context.Background()
	var rings []*keyring
	for range 4 {
		k, err := openKeyring(ctx, b.JetStream(), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		rings = append(rings, k)
	}
	keys := make([][]byte, len(rings))
	var wg sync.WaitGroup
	for i, k := range rings {
		wg.Go(func() {
			v, err := k.key(ctx, "s.acme.x", true)
			if err != nil {
				t.Error(err)
			}
			keys[i] = v
		})
	}
	wg.Wait()
	for i := range keys {
		if len(keys[i]) != 32 || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("writers made different keys: %x", keys)
		}
	}
	sealed, err := rings[1].seal(ctx, "s.acme.x", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	plain, ok, err := rings[2].open(ctx, "s.acme.x", sealed)
	if err != nil || !ok || string(plain) != `{"a":1}` {
		t.Fatalf("open: %q %v %v", plain, ok, err)
	}
	if _, _, err := rings[2].open(ctx, "s.acme.y", sealed); err == nil {
		t.Fatal("a value moved to another entry opened")
	}
	// A value written before sealing reads as is.
	plain, ok, err = rings[3].open(ctx, "s.acme.z", []byte(`{"b":2}`))
	if err != nil || ok || string(plain) != `{"b":2}` {
		t.Fatalf("legacy value: %q %v %v", plain, ok, err)
	}
}

// filesWith lists the files under dir, with in their path, holding s.
func filesWith(t *testing.T, dir, in, s string) []string {
	t.Helper()
	var out []string
	seen := 0
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.Contains(p, in) {
			return nil
		}
		seen++
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, p)
		}
		return nil
	})
	if seen == 0 {
		t.Fatalf("no file under %s has %s in its path", dir, in)
	}
	return out
}

// The sweep shreds the keys of entries that are gone once they are old
// enough, and keeps those of live entries and of fresh ones.
func TestSweepShredsKeysOfGoneEntries(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ctx := context.Background()
	h.mustHandle(h.turn("t1", "user", "I moved to Tallinn in March"))
	live := sessionKey("acme", "default", "s1")
	gone := sessionKey("acme", "default", "s2")
	if _, err := h.x.sessions.keys.key(ctx, gone, true); err != nil {
		t.Fatal(err)
	}
	if n, err := h.x.sweepKeys(ctx, time.Now()); err != nil || n != 0 {
		t.Fatalf("a fresh key without its entry was swept: %d %v", n, err)
	}
	n, err := h.x.sweepKeys(ctx, time.Now().Add(2*orphanAge))
	if err != nil || n != 1 {
		t.Fatalf("swept %d keys (%v), want the gone entry's one", n, err)
	}
	if _, ok, _ := h.x.sessions.keys.made(ctx, gone); ok {
		t.Fatal("the gone entry's key is still there")
	}
	if _, ok, _ := h.x.sessions.keys.made(ctx, live); !ok {
		t.Fatal("the live entry's key was swept")
	}
	if _, ok := h.session("s1"); !ok {
		t.Fatal("the live entry no longer reads")
	}
}
