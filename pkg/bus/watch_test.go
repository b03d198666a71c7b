package bus

import (
	"sync"
	"testing"
)

func TestWatchSeesJetStreamPublishes(t *testing.T) {
	b := openTestBus(t)
	var (
		mu  sync.Mutex
		got []string
	)
	stop, err := b.Watch(AllStored, func(data []byte) {
		mu.Lock()
		got = append(got, string(data))
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	if err := b.Publish(ctxT(t), Msg{Subject: StoredSubject("acme"), ID: "s1", Data: []byte(`one`)}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	eventually(t, "the watch saw the publish", func() bool { return count() == 1 })
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := b.Publish(ctxT(t), Msg{Subject: StoredSubject("acme"), ID: "s2", Data: []byte(`two`)}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	// Flush round-trips to the server, which has delivered anything it
	// would deliver to this connection by then.
	if err := b.Conn().Flush(); err != nil {
		t.Fatalf("flush: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "one" {
		t.Errorf("watched %q, want only %q (nothing after stop)", got, "one")
	}
}
