package usage

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"
)

// Writer stores a batch of records in a backend (ClickHouse, the local
// log). It must not keep the slice after returning. A batch that fails is
// offered again, so a Writer should write all of it or nothing.
type Writer interface {
	Write(ctx context.Context, records []Record) error
}

// Buffered is the Sink in front of a Writer: Record only appends to a
// bounded in-memory queue, and a background loop writes batches, retrying
// with backoff while the backend is down. A backend outage therefore never
// slows model calls down, and loses nothing until the queue is full.
type Buffered struct {
	w Writer
	o options

	mu       sync.Mutex
	queue    []Record // oldest first, from head; only the holder of sem removes
	head     int      // records before head are written
	closed   bool
	dropping bool // a drop has been logged since the last successful write

	// sem serialises writes, so batches reach the backend in order and a
	// record is never in two writes at once.
	sem  chan struct{}
	kick chan struct{} // a full batch is waiting

	stop   chan struct{}   // closed by Close: the loop ends after its write
	ctx    context.Context // cancelled by Close to abort a write that hangs
	cancel context.CancelFunc
	done   chan struct{}

	closeOnce sync.Once
	closeErr  error

	written atomic.Int64
	dropped atomic.Int64
	failed  atomic.Int64
}

var _ Sink = (*Buffered)(nil)

// NewBuffered starts the background loop writing to w. Close stops it; the
// caller still owns w.
func NewBuffered(w Writer, opts ...Option) *Buffered {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	o.batchSize = min(o.batchSize, o.capacity)
	ctx, cancel := context.WithCancel(context.Background())
	b := &Buffered{
		w:      w,
		o:      o,
		sem:    make(chan struct{}, 1),
		kick:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go b.run()
	return b
}

// Record queues r without waiting for the backend. A zero Time becomes now,
// an empty Outcome OutcomeOK, and an empty TraceID the trace of ctx.
func (b *Buffered) Record(ctx context.Context, r Record) {
	if r.Time.IsZero() {
		r.Time = b.o.now()
	}
	if r.Outcome == "" {
		r.Outcome = OutcomeOK
	}
	if r.TraceID == "" {
		if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
			r.TraceID = sc.TraceID().String()
		}
	}
	b.mu.Lock()
	if b.closed || len(b.queue)-b.head >= b.o.capacity {
		first := !b.dropping
		b.dropping = true
		closed := b.closed
		b.mu.Unlock()
		b.dropped.Add(1)
		if first && !closed {
			b.o.log.Warn("usage buffer full, dropping records", "capacity", b.o.capacity, "tenant", r.Tenant)
		}
		return
	}
	b.queue = append(b.queue, r)
	full := len(b.queue)-b.head >= b.o.batchSize
	b.mu.Unlock()
	if full {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
}

// Flush writes every record queued before the call, or returns the first
// write error; records that were not written stay queued.
func (b *Buffered) Flush(ctx context.Context) error {
	if err := b.flush(ctx); err != nil {
		return fmt.Errorf("flush usage records: %w", err)
	}
	return nil
}

// Close stops the loop and flushes what is left, all within the close
// timeout. Records it cannot write are counted as dropped and reported. The
// Writer is not closed.
func (b *Buffered) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), b.o.closeTimeout)
		defer cancel()
		// Let a write in flight finish rather than cancel it: the backend
		// may already have stored it, and a retry would store it twice.
		close(b.stop)
		select {
		case <-b.done:
		case <-ctx.Done():
			b.cancel()
			<-b.done
		}
		b.cancel()
		if err := b.flush(ctx); err != nil {
			b.sem <- struct{}{} // a concurrent Flush may be mid-batch
			b.mu.Lock()
			lost := len(b.queue) - b.head
			b.queue, b.head = nil, 0
			b.mu.Unlock()
			<-b.sem
			b.dropped.Add(int64(lost))
			b.closeErr = fmt.Errorf("close usage buffer: %d records not written: %w", lost, err)
		}
	})
	return b.closeErr
}

// Dropped is how many records were lost: refused because the queue was
// full or the sink closed, or left unwritten by Close.
func (b *Buffered) Dropped() int64 { return b.dropped.Load() }

// Written is how many records the backend accepted.
func (b *Buffered) Written() int64 { return b.written.Load() }

// FailedWrites is how many batch writes the backend refused.
func (b *Buffered) FailedWrites() int64 { return b.failed.Load() }

// Pending is how many records wait for the backend.
func (b *Buffered) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue) - b.head
}

// flush writes the records queued now, batch by batch.
func (b *Buffered) flush(ctx context.Context) error {
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-b.sem }()
	left := b.Pending()
	for left > 0 {
		n, err := b.writeBatch(ctx)
		if err != nil {
			return err
		}
		left -= n
	}
	return nil
}

// writeBatch writes the oldest batch and removes it once the backend has
// it. The caller holds sem.
func (b *Buffered) writeBatch(ctx context.Context) (int, error) {
	b.mu.Lock()
	n := min(len(b.queue)-b.head, b.o.batchSize)
	batch := slices.Clone(b.queue[b.head : b.head+n])
	b.mu.Unlock()
	if n == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.o.writeTimeout)
	defer cancel()
	if err := b.w.Write(ctx, batch); err != nil {
		b.failed.Add(1)
		return 0, fmt.Errorf("write %d usage records: %w", n, err)
	}
	b.mu.Lock()
	b.removeWritten(n)
	b.dropping = false
	b.mu.Unlock()
	b.written.Add(int64(n))
	return n, nil
}

// removeWritten drops the n oldest records. Moving the rest to the front
// only once they are at most half the slice keeps it amortised O(1) per
// record. The caller holds mu.
func (b *Buffered) removeWritten(n int) {
	clear(b.queue[b.head : b.head+n]) // let the written records' strings go
	b.head += n
	if rest := len(b.queue) - b.head; rest <= b.head {
		copy(b.queue, b.queue[b.head:])
		clear(b.queue[rest:])
		b.queue = b.queue[:rest]
		b.head = 0
	}
}
