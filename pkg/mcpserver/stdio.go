package mcpserver

import (
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of `recollect mcp`: newline-delimited JSON-RPC on
// in and out. When in ends (the client closed its end of the pipe), the
// session stays open until every request already read has been answered:
// a client that writes initialize, tools/list and tools/call and closes
// stdin gets all three answers (the SDK alone cancels the calls still in
// flight at end of input and writes only what was done).
func Stdio(in io.ReadCloser, out io.WriteCloser) mcp.Transport {
	return drainTransport{&mcp.IOTransport{Reader: in, Writer: out}}
}

type drainTransport struct{ mcp.Transport }

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: conn, pending: map[jsonrpc.ID]struct{}{}, changed: make(chan struct{})}, nil
}

// drainConn counts the calls read and the answers written; a failed Read
// (end of input) is reported only once none is left unanswered, or when
// the Read's context ends.
type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{}
	changed chan struct{} // closed and replaced whenever pending shrinks
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.mu.Lock()
			c.pending[req.ID] = struct{}{}
			c.mu.Unlock()
		}
		return msg, nil
	}
	for {
		c.mu.Lock()
		n, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			return nil, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, err
		}
	}
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if _, ok := c.pending[resp.ID]; ok {
			delete(c.pending, resp.ID)
			close(c.changed)
			c.changed = make(chan struct{})
		}
		c.mu.Unlock()
	}
	return err
}
