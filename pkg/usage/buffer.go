package usage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
// With a spool (NewSpooled) every queued record is also on disk, so a
// process killed with kill -9 loses nothing: the next start replays it.
type Buffered struct {
	w  Writer
	o  options
	sp *spool // nil without a spool; guarded by mu

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

	written  atomic.Int64
	dropped  atomic.Int64
	failed   atomic.Int64
	replayed atomic.Int64
}

var _ Sink = (*Buffered)(nil)

// NewBuffered starts the background loop writing to w. Close stops it; the
// caller still owns w.
func NewBuffered(w Writer, opts ...Option) *Buffered {
	b := newBuffered(w, opts)
	go b.run()
	return b
}

// NewSpooled is NewBuffered with the queue kept in a spool in dir as
// well: records an earlier run left there (a kill -9, or a backend down at
// Close) are queued first and written again; the backend counts each once
// by its ID. Lines a crash cut in half are counted as dropped. Close keeps
// what it cannot write in the spool instead of dropping it.
func NewSpooled(w Writer, dir string, opts ...Option) (*Buffered, error) {
	b := newBuffered(w, opts)
	sp, found, err := openSpool(dir, b.o.batchSize, b.o.log)
	if err != nil {
		b.cancel()
		return nil, err
	}
	b.sp = sp
	if sp.dir != dir {
		b.o.log.Warn("usage spool dir in use by another process (a shared data dir); using another", "dir", sp.dir)
	}
	b.queue = found.records
	b.replayed.Store(int64(len(found.records)))
	b.dropped.Add(int64(found.torn))
	if len(found.records) > 0 || found.torn > 0 {
		b.o.log.Info("usage spool replayed", "dir", dir, "records", len(found.records), "torn_lines_dropped", found.torn)
	}
	go b.run()
	return b, nil
}

func newBuffered(w Writer, opts []Option) *Buffered {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	o.batchSize = min(o.batchSize, o.capacity)
	ctx, cancel := context.WithCancel(context.Background())
	return &Buffered{
		w:      w,
		o:      o,
		sem:    make(chan struct{}, 1),
		kick:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
	}
}

// newID is 128 random bits, unique per record across processes.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails: crypto/rand aborts the program instead
	return hex.EncodeToString(b[:])
}

// Record queues r without waiting for the backend. A zero Time becomes now,
// an empty Outcome OutcomeOK, an empty TraceID the trace of ctx and an
// empty ID a fresh one. With a spool, r is in the spool file when Record
// returns, or counted as dropped (disk full).
func (b *Buffered) Record(ctx context.Context, r Record) {
	if r.ID == "" {
		r.ID = newID()
	}
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
	var line []byte
	if b.sp != nil {
		var err error
		if line, err = json.Marshal(r); err != nil {
			b.drop(fmt.Sprintf("encode usage record: %v", err), r.Tenant)
			return
		}
		line = append(line, '\n')
	}
	b.mu.Lock()
	if b.closed || len(b.queue)-b.head >= b.o.capacity {
		closed := b.closed
		b.mu.Unlock()
		if closed {
			b.dropped.Add(1)
		} else {
			b.drop("usage buffer full, dropping records", r.Tenant)
		}
		return
	}
	if b.sp != nil {
		if err := b.sp.append(line); err != nil {
			b.mu.Unlock()
			b.drop(err.Error(), r.Tenant)
			return
		}
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

// drop counts one lost record and logs the first of a run of drops.
func (b *Buffered) drop(why, tenant string) {
	b.dropped.Add(1)
	b.mu.Lock()
	first := !b.dropping
	b.dropping = true
	b.mu.Unlock()
	if first {
		b.o.log.Warn(why, "capacity", b.o.capacity, "tenant", tenant)
	}
}

// Flush writes every record queued before the call, or returns the first
// write error; records that were not written stay queued.
func (b *Buffered) Flush(ctx context.Context) error {
	b.syncSpool()
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
		b.syncSpool()
		err := b.flush(ctx)
		if b.sp != nil {
			b.closeSpool(err)
			return
		}
		if err != nil {
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

// Abandon stops the buffer the way kill -9 stops its process: the loop
// ends without a final write, nothing is counted, and the spool's files
// and lock are let go as they are, for the next NewSpooled to replay. It
// is how tests of crash recovery stand in for a killed process; a real
// shutdown calls Close.
func (b *Buffered) Abandon() {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		b.cancel() // a write in flight is cut off, as by the kill
		close(b.stop)
		<-b.done
		b.sem <- struct{}{}
		b.mu.Lock()
		if b.sp != nil {
			_ = b.sp.f.Close()
			_ = b.sp.lock.Close()
		}
		b.mu.Unlock()
		<-b.sem
	})
}

// closeSpool closes the spool after Close's final flush, which failed
// with err (or not): what is left stays in the spool for the next start.
func (b *Buffered) closeSpool(flushErr error) {
	b.sem <- struct{}{} // a concurrent Flush may be mid-batch
	b.mu.Lock()
	left := b.sp.pending()
	cerr := b.sp.close()
	b.queue, b.head = nil, 0
	b.mu.Unlock()
	<-b.sem
	if left > 0 {
		b.o.log.Warn("usage backend unavailable at close; records kept in the spool for the next start",
			"records", left, "dir", b.sp.dir, "err", flushErr)
	}
	if cerr != nil {
		b.closeErr = fmt.Errorf("close usage buffer: %w", cerr)
	}
}

// syncSpool fsyncs the spool's new records: group commit, once per flush.
func (b *Buffered) syncSpool() {
	if b.sp == nil {
		return
	}
	b.mu.Lock()
	err := b.sp.sync()
	b.mu.Unlock()
	if err != nil {
		b.o.log.Warn("usage spool sync failed; records survive kill -9 but not a power failure", "err", err)
	}
}

// Dropped is how many records were lost: refused because the queue was
// full, the sink closed or the spool could not take them (disk full), left
// unwritten by Close without a spool, or cut in half by a crash.
func (b *Buffered) Dropped() int64 { return b.dropped.Load() }

// Replayed is how many records the spool held from an earlier run.
func (b *Buffered) Replayed() int64 { return b.replayed.Load() }

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
	if b.sp != nil {
		b.sp.release(n)
	}
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
