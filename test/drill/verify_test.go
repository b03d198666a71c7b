package drill

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

// storage is what the store holds for the drill's tenant: per event, the
// memories whose source_ids name it, and the memories naming no drill event.
type storage struct {
	bySource map[int][]memory.Memory
	// saidBySource holds the transcript memories (a turn or a message as
	// said), apart from the facts extracted from the same event.
	saidBySource map[int][]memory.Memory
	foreign      int
	memories     int
	superseded   int
	repeated     int // memories with repetition_count > 1
	multiSource  int // memories naming more than one drill event
}

// listAll pages through every memory of the tenant, archived and
// superseded included, through the query process.
func listAll(ctx context.Context, queryURL string, events int) (*storage, error) {
	st := &storage{bySource: map[int][]memory.Memory{}, saidBySource: map[int][]memory.Memory{}}
	client := &http.Client{Timeout: 30 * time.Second}
	after := ""
	for {
		u := queryURL + "/v1/memories?tenant=" + tenant + "&limit=1000&archived=true&superseded=true&quarantined=true"
		if after != "" {
			u += "&after=" + url.QueryEscape(after)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		var page query.ListResponse
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("list memories: %s", resp.Status)
		}
		if err != nil {
			return nil, fmt.Errorf("decode memories: %w", err)
		}
		for _, m := range page.Memories {
			st.memories++
			if m.Superseded() {
				st.superseded++
			}
			if m.RepetitionCount > 1 {
				st.repeated++
			}
			n := 0
			for _, s := range m.SourceIDs {
				if i, ok := eventIndex(s, events); ok {
					if m.Transcript() {
						st.saidBySource[i] = append(st.saidBySource[i], m)
					} else {
						st.bySource[i] = append(st.bySource[i], m)
					}
					n++
				}
			}
			if n == 0 {
				st.foreign++
			}
			if n > 1 {
				st.multiSource++
			}
		}
		if page.Next == "" {
			return st, nil
		}
		after = page.Next
	}
}

// eventIndex parses a source id "drill:ev-00042".
func eventIndex(source string, events int) (int, bool) {
	var i int
	if _, err := fmt.Sscanf(source, tenant+":ev-%05d", &i); err != nil || i < 0 || i >= events {
		return 0, false
	}
	return i, true
}

// consumerState is one durable consumer's backlog.
type consumerState struct {
	Stream, Consumer    string
	Pending, AckPending uint64
	Redelivered         int
}

func consumers(ctx context.Context, d *deployment) ([]consumerState, error) {
	var out []consumerState
	for _, name := range []string{bus.StreamConv, bus.StreamFact, bus.StreamEvent} {
		s, err := d.js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		l := s.ListConsumers(ctx)
		for ci := range l.Info() {
			out = append(out, consumerState{Stream: name, Consumer: ci.Name, Pending: ci.NumPending,
				AckPending: uint64(ci.NumAckPending), Redelivered: ci.NumRedelivered})
		}
		if err := l.Err(); err != nil {
			return nil, fmt.Errorf("list consumers of %s: %w", name, err)
		}
	}
	return out, nil
}

// deadLetter is one entry of RECOLLECT_DLQ, classified.
type deadLetter struct {
	Seq        uint64 `json:"seq"`
	Consumer   string `json:"consumer"`
	MsgID      string `json:"msg_id"`
	Deliveries string `json:"deliveries"`
	Reason     string `json:"reason"`
	Class      string `json:"class"`
	Event      string `json:"event,omitempty"`
	Stored     bool   `json:"event_stored"`
}

// deadLetterClasses are the failures the drill injects, by what their
// errors say. A dead letter matching none is unexplained.
var deadLetterClasses = []struct {
	class string
	re    *regexp.Regexp
}{
	{"redis outage", regexp.MustCompile(`(?i)redis|dial tcp [^ ]*: connect: connection refused.*6379`)},
	{"clickhouse outage", regexp.MustCompile(`(?i)clickhouse`)},
	{"nats/jetstream fault", regexp.MustCompile(`(?i)nats|jetstream|no responders|stream leader|raft`)},
	{"store restart", regexp.MustCompile(`(?i)store (is )?(unavailable|down)|storeclient|store request`)},
	{"backend unavailable", regexp.MustCompile(`(?i)unavailable|connection refused|connection reset|broken pipe|EOF|deadline exceeded|timeout|timed out`)},
}

func classify(reason string) string {
	for _, c := range deadLetterClasses {
		if c.re.MatchString(reason) {
			return c.class
		}
	}
	return "unexplained"
}

func deadLetters(ctx context.Context, d *deployment, st *storage, events int) ([]deadLetter, error) {
	s, err := d.js.Stream(ctx, bus.StreamDLQ)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", bus.StreamDLQ, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("stream %s info: %w", bus.StreamDLQ, err)
	}
	var out []deadLetter
	if info.State.Msgs == 0 {
		return nil, nil
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted
		}
		dl := deadLetter{Seq: seq, Consumer: m.Header.Get(bus.HeaderDLQConsumer), MsgID: m.Header.Get(bus.HeaderDLQMsgID),
			Deliveries: m.Header.Get(bus.HeaderDLQDeliveries), Reason: m.Header.Get(bus.HeaderDLQReason)}
		dl.Class = classify(dl.Reason)
		if i, ok := eventIndex(dl.MsgID, events); ok {
			dl.Event = strings.TrimPrefix(dl.MsgID, tenant+":")
			dl.Stored = len(st.bySource[i]) > 0
		}
		out = append(out, dl)
	}
	return out, nil
}

// usageRows counts the usage rows ClickHouse holds and their distinct
// record ids (a record replayed after a kill may be there twice until a
// merge).
func usageRows(ctx context.Context, dsn string) (rows, ids uint64, err error) {
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return 0, 0, err
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	err = conn.QueryRow(ctx, "SELECT count(), uniqExact(id) FROM recollect_usage").Scan(&rows, &ids)
	return rows, ids, err
}
