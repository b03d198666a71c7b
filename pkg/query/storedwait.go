package query

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// storedWaiters hands the embedder's stored events to the learns waiting
// for them, by source event ("tenant:event id"). A learn registers before
// it publishes, so no event can pass unseen between the two.
type storedWaiters struct {
	n       atomic.Int64 // registered waiters: the feed skips decoding when 0
	mu      sync.Mutex
	waiting map[string][]chan memory.StoredEvent
}

func newStoredWaiters() *storedWaiters {
	return &storedWaiters{waiting: map[string][]chan memory.StoredEvent{}}
}

// add registers a waiter for source; cancel removes it.
func (w *storedWaiters) add(source string) (events <-chan memory.StoredEvent, cancel func()) {
	ch := make(chan memory.StoredEvent, 1)
	w.mu.Lock()
	w.waiting[source] = append(w.waiting[source], ch)
	w.mu.Unlock()
	w.n.Add(1)
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		list := w.waiting[source]
		for i, c := range list {
			if c == ch {
				list = append(list[:i], list[i+1:]...)
				w.n.Add(-1)
				break
			}
		}
		if len(list) == 0 {
			delete(w.waiting, source)
		} else {
			w.waiting[source] = list
		}
	}
}

// OnStored is the feed of stored events (recollect.event.stored.>): each
// one that names a waited-for source event is handed to its waiters.
// Events that are not stored events are ignored.
func (q *Query) OnStored(data []byte) {
	w := q.waiters
	if w.n.Load() == 0 {
		return
	}
	var ev memory.StoredEvent
	if err := json.Unmarshal(data, &ev); err != nil || ev.SourceEvent == "" || ev.Op == memory.StoredDeleted {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range w.waiting[ev.SourceEvent] {
		select {
		case ch <- ev:
		default: // the waiter has its answer already
		}
	}
}
