package consolidate

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// storedEvents reads every stored event of the tenant on the stream.
func (f *fixture) storedEvents(t *testing.T) []memory.StoredEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := f.b.JetStream().OrderedConsumer(ctx, bus.StreamEvent, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{bus.StoredSubject(tenant)}})
	if err != nil {
		t.Fatal(err)
	}
	var out []memory.StoredEvent
	for {
		batch, err := cons.FetchNoWait(100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			var ev memory.StoredEvent
			if err := json.Unmarshal(msg.Data(), &ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, ev)
		}
		if n == 0 {
			return out
		}
	}
}

// TestEpochAnnouncesChangesOfStanding: a supersession an epoch makes is
// announced on the stored subject (what webhooks read), with the memory's
// new standing; changes that keep the standing are not, and a later epoch
// announces nothing again.
func TestEpochAnnouncesChangesOfStanding(t *testing.T) {
	f := newFixture(t, "")
	vim := f.mem("My editor is Vim", memory.TypePreference, memory.SourceAPI)
	vim.Key = "editor"
	f.put(t, vim)
	f.epoch(t)
	f.clock.add(21 * 24 * time.Hour)
	helix := f.mem("I switched to Helix", memory.TypePreference, memory.SourceAPI)
	helix.Key = "editor"
	f.put(t, helix)
	f.epoch(t)
	f.clock.add(time.Hour)
	f.epoch(t)
	got := f.storedEvents(t)
	if len(got) != 1 || got[0].ID != vim.ID || got[0].Op != memory.StoredUpdated || got[0].State != memory.StateSuperseded {
		t.Fatalf("stored events %+v, want the Vim memory updated as superseded, once", got)
	}
}
