package remote

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
)

// chunkHeadroom is what a message keeps free under the max payload for its
// headers (NATS counts headers against it).
const chunkHeadroom = 1024

// maxPrealloc caps the buffer reserved up front for a chunked reply, so a
// bogus chunk count cannot make the client allocate a huge slice.
const maxPrealloc = 64 << 20

// bodyLimit is the largest body one message may carry on nc.
func bodyLimit(nc *nats.Conn) int {
	if nc == nil {
		return chunkHeadroom // the request fails later, with ErrUnavailable
	}
	return max(int(nc.MaxPayload())-chunkHeadroom, chunkHeadroom)
}

// publishReply sends body to reply, in as many messages as the max payload
// requires. Core NATS keeps one publisher's messages in order, so the client
// reassembles them by sequence.
func publishReply(nc *nats.Conn, reply string, body []byte) error {
	size := bodyLimit(nc)
	if len(body) <= size {
		return nc.Publish(reply, body)
	}
	n := (len(body) + size - 1) / size
	for i := range n {
		msg := nats.NewMsg(reply)
		msg.Data = body[i*size : min((i+1)*size, len(body))]
		msg.Header.Set(headerChunk, strconv.Itoa(i+1)+"/"+strconv.Itoa(n))
		if err := nc.PublishMsg(msg); err != nil {
			return fmt.Errorf("publish reply chunk %d/%d: %w", i+1, n, err)
		}
	}
	return nil
}

// receiveReply reads one reply with next, reassembling chunks.
func receiveReply(ctx context.Context, next func(context.Context) (*nats.Msg, error)) ([]byte, error) {
	first, err := next(ctx)
	if err != nil {
		return nil, err
	}
	h := first.Header.Get(headerChunk)
	if h == "" {
		return first.Data, nil
	}
	i, n, err := parseChunk(h)
	if err != nil {
		return nil, err
	}
	if i != 1 {
		return nil, fmt.Errorf("reply starts with chunk %s", h)
	}
	body := make([]byte, 0, min(n*len(first.Data), maxPrealloc))
	body = append(body, first.Data...)
	for want := 2; want <= n; want++ {
		m, err := next(ctx)
		if err != nil {
			return nil, fmt.Errorf("reply chunk %d/%d: %w", want, n, err)
		}
		h := m.Header.Get(headerChunk)
		i, n2, err := parseChunk(h)
		if err != nil {
			return nil, err
		}
		if i != want || n2 != n {
			return nil, fmt.Errorf("reply chunk %s arrived where %d/%d was expected", h, want, n)
		}
		body = append(body, m.Data...)
	}
	return body, nil
}

func parseChunk(h string) (i, n int, err error) {
	a, b, ok := strings.Cut(h, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || i < 1 || n < i {
		return 0, 0, fmt.Errorf("bad %s header %q", headerChunk, h)
	}
	return i, n, nil
}
