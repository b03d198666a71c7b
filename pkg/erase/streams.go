package erase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// scanBatch and scanWait pace the scan of a stream.
const (
	scanBatch = 256
	scanWait  = time.Second
)

// Streams is the place of the pipeline's streams: every conversation
// event, fact, stored notice and dead letter about the target is deleted
// with SecureDeleteMsg (JetStream overwrites the message in its files).
func Streams(js jetstream.JetStream) Place {
	return PlaceFunc{Place: "streams", Func: func(ctx context.Context, t Target) (Outcome, error) {
		s := t.sets()
		// An event without a subject (an assistant's turn, say) in a
		// session of the subject's is the subject's conversation too.
		s.sessions = map[string]bool{}
		if _, err := eraseMessages(ctx, js, bus.StreamConv, bus.ConvSubject(t.Tenant), func(data []byte) bool {
			var e memory.Event
			if json.Unmarshal(data, &e) == nil && e.SessionID != "" && (e.Subject == t.Subject || s.events[e.ID]) {
				s.sessions[e.Namespace+"\x00"+e.SessionID] = true
			}
			return false
		}); err != nil {
			return Outcome{}, fmt.Errorf("find the subject's sessions in stream %s: %w", bus.StreamConv, err)
		}
		var total int
		var notes []string
		for _, sc := range []struct {
			stream, filter string
			match          func(data []byte, s targetSets, t Target) bool
		}{
			{bus.StreamConv, bus.ConvSubject(t.Tenant), matchEvent},
			{bus.StreamFact, bus.AllFact, matchFact},
			{bus.StreamEvent, bus.StoredSubject(t.Tenant), matchStored},
			{bus.StreamDLQ, bus.AllDLQ, func(data []byte, s targetSets, t Target) bool {
				return matchEvent(data, s, t) || matchFact(data, s, t) || matchStored(data, s, t)
			}},
		} {
			n, err := eraseMessages(ctx, js, sc.stream, sc.filter, func(data []byte) bool { return sc.match(data, s, t) })
			if err != nil {
				return Outcome{Erased: total}, fmt.Errorf("erase from stream %s: %w", sc.stream, err)
			}
			total += n
			notes = append(notes, fmt.Sprintf("%s %d", sc.stream, n))
		}
		return Outcome{Erased: total, Note: "messages securely deleted: " + strings.Join(notes, ", ")}, nil
	}}
}

// matchEvent: a conversation event of the subject, one a purged memory
// came from, or one without a subject in a session of the subject's.
func matchEvent(data []byte, s targetSets, t Target) bool {
	var e memory.Event
	if json.Unmarshal(data, &e) != nil || e.Type == "" {
		return false
	}
	if e.Tenant != "" && e.Tenant != t.Tenant {
		return false
	}
	return e.Subject == t.Subject || s.events[e.ID] ||
		(e.Subject == "" && e.SessionID != "" && s.sessions[e.Namespace+"\x00"+e.SessionID])
}

// matchFact: a fact of a purged memory, of the subject, or from one of
// the subject's events.
func matchFact(data []byte, s targetSets, t Target) bool {
	var f memory.FactMessage
	if json.Unmarshal(data, &f) != nil || f.Op == "" || f.Tenant != t.Tenant {
		return false
	}
	if f.Feedback != nil && s.ids[f.Feedback.MemoryID] {
		return true
	}
	return f.Memory.Subject == t.Subject || s.ids[f.Memory.ID] || s.events[f.SourceEvent]
}

// matchStored: a notice about a purged memory, except the deletion
// notices readers still need (they hold an id only).
func matchStored(data []byte, s targetSets, t Target) bool {
	var e memory.StoredEvent
	if json.Unmarshal(data, &e) != nil || e.Op == "" || e.Tenant != t.Tenant {
		return false
	}
	return e.Op != memory.StoredDeleted && s.ids[e.ID]
}

// eraseMessages scans the stream's messages on filter present when it
// starts and securely deletes those match accepts.
func eraseMessages(ctx context.Context, js jetstream.JetStream, stream, filter string, match func([]byte) bool) (int, error) {
	st, err := js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up stream: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("stream info: %w", err)
	}
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		return 0, nil
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return 0, fmt.Errorf("scan consumer: %w", err)
	}
	var seqs []uint64
scan:
	for {
		batch, err := cons.Fetch(scanBatch, jetstream.FetchMaxWait(scanWait))
		if err != nil {
			return 0, fmt.Errorf("scan: %w", err)
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			meta, err := msg.Metadata()
			if err != nil {
				continue
			}
			if meta.Sequence.Stream > last {
				break scan
			}
			if match(msg.Data()) {
				seqs = append(seqs, meta.Sequence.Stream)
			}
			if meta.NumPending == 0 || meta.Sequence.Stream == last {
				break scan
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return 0, fmt.Errorf("scan: %w", err)
		}
		if got == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	n := 0
	for _, seq := range seqs {
		err := st.SecureDeleteMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // gone meanwhile (limits, another purge)
		}
		if err != nil {
			return n, fmt.Errorf("delete message %d (%d deleted): %w", seq, n, err)
		}
		n++
	}
	return n, nil
}
