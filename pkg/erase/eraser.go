package erase

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ErrCannot is wrapped by a place that cannot erase at all (a backend
// without the means); the receipt says not_erased with the reason.
var ErrCannot = errors.New("cannot erase here")

// Defaults of an Eraser.
const (
	// DefaultWait is how long Start waits for the places before answering
	// with the receipt as it stands; the rest continues in the background.
	DefaultWait = 10 * time.Second
	// DefaultBound is how long a purge may take in all; a place still
	// running then is failed, and asking again resumes the purge.
	DefaultBound = 10 * time.Minute
	// keptReceipts bounds the receipts kept for reading by id.
	keptReceipts = 1000
)

// ReceiptStore keeps receipts for reading by id from any process, and the
// ids of a purge not finished yet under a hash of its subject, so a purge
// asked again after a crash (the store already without the memories)
// still knows which ids to look for elsewhere.
type ReceiptStore interface {
	Put(ctx context.Context, r Receipt) error
	Get(ctx context.Context, tenant, id string) (Receipt, error)
	PutPending(ctx context.Context, tenant, subjectHash string, ids []string) error
	Pending(ctx context.Context, tenant, subjectHash string) ([]string, error)
	DropPending(ctx context.Context, tenant, subjectHash string) error
}

// ErrNoReceipt is returned for an unknown receipt id.
var ErrNoReceipt = errors.New("no such erasure receipt")

// Eraser runs the places of a purge, in order, and keeps its receipt.
type Eraser struct {
	places []Place
	store  ReceiptStore
	log    *slog.Logger
	now    func() time.Time
	wait   time.Duration
	bound  time.Duration
	wg     sync.WaitGroup
	// places counts each place's outcome (WithRegisterer).
	outcomes *prometheus.CounterVec
	// onFinished is told each final receipt (WithOnFinished).
	onFinished func(ctx context.Context, r Receipt)
	// base outlives requests and ends with Close.
	base   context.Context
	cancel context.CancelFunc
}

// Option tunes an Eraser.
type Option func(*Eraser)

// WithWait sets how long Start waits before answering (DefaultWait).
func WithWait(d time.Duration) Option { return func(e *Eraser) { e.wait = d } }

// WithBound sets the bound on a whole purge (DefaultBound).
func WithBound(d time.Duration) Option { return func(e *Eraser) { e.bound = d } }

// WithReceiptStore keeps receipts there instead of in this process only.
func WithReceiptStore(s ReceiptStore) Option { return func(e *Eraser) { e.store = s } }

// WithRegisterer counts each place's outcome in
// recollect_erasure_places_total{place,state}.
func WithRegisterer(reg prometheus.Registerer) Option {
	return func(e *Eraser) {
		e.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recollect_erasure_places_total",
			Help: "Places a subject purge erased, failed or could not erase, by place and state.",
		}, []string{"place", "state"})
		if reg != nil {
			reg.MustRegister(e.outcomes)
		}
	}
}

// WithOnFinished calls fn with every purge's final receipt, once its
// places are all done (e.g. to announce it on the bus).
func WithOnFinished(fn func(ctx context.Context, r Receipt)) Option {
	return func(e *Eraser) { e.onFinished = fn }
}

// WithClock sets the clock that stamps receipts.
func WithClock(now func() time.Time) Option { return func(e *Eraser) { e.now = now } }

// New builds an Eraser of places, run in the order given.
func New(places []Place, log *slog.Logger, opts ...Option) *Eraser {
	e := &Eraser{places: places, log: log, now: time.Now, wait: DefaultWait, bound: DefaultBound}
	for _, o := range opts {
		o(e)
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.store == nil {
		e.store = NewMemReceipts(keptReceipts)
	}
	e.base, e.cancel = context.WithCancel(context.Background())
	return e
}

// Close stops the purges running in the background and waits for them:
// their places fail with the cancellation, and asking again resumes them.
func (e *Eraser) Close() {
	e.cancel()
	e.wg.Wait()
}

// Start erases t everywhere: it answers once every place is done or after
// the wait, whichever is first, with the receipt as it stands; the places
// left continue in the background, bounded, and update the receipt.
// first are places already done by the caller (the store's deletion),
// listed first in the receipt.
func (e *Eraser) Start(ctx context.Context, t Target, first ...PlaceReceipt) Receipt {
	t.Receipt = newID()
	key := subjectHash(t.Tenant, t.Subject)
	if earlier, err := e.store.Pending(ctx, t.Tenant, key); err != nil {
		e.log.WarnContext(ctx, "read the ids of an unfinished purge", "tenant", t.Tenant, "error", err)
	} else {
		for _, id := range earlier {
			if !slices.Contains(t.IDs, id) {
				t.IDs = append(t.IDs, id)
			}
		}
	}
	if err := e.store.PutPending(ctx, t.Tenant, key, t.IDs); err != nil {
		e.log.WarnContext(ctx, "keep the ids of a purge until it finishes", "tenant", t.Tenant, "error", err)
	}
	r := Receipt{ID: t.Receipt, Tenant: t.Tenant, State: StateRunning, Started: e.now().UTC()}
	r.Places = append(r.Places, first...)
	for _, p := range e.places {
		r.Places = append(r.Places, PlaceReceipt{Place: p.Name(), State: StatePending})
	}
	var mu sync.Mutex
	snapshot := func() Receipt {
		mu.Lock()
		defer mu.Unlock()
		return r.clone()
	}
	e.put(ctx, snapshot())
	done := make(chan struct{})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer close(done)
		// The purge outlives the request that asked for it, not the
		// process's stop; it keeps the request's values (trace ids).
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.bound)
		defer cancel()
		stop := context.AfterFunc(e.base, cancel)
		defer stop()
		for i, p := range e.places {
			pr := e.run(bctx, p, t)
			mu.Lock()
			r.Places[len(first)+i] = pr
			r.settle(e.now().UTC())
			mu.Unlock()
			e.put(bctx, snapshot())
		}
		mu.Lock()
		r.settle(e.now().UTC())
		mu.Unlock()
		e.put(bctx, snapshot())
		final := snapshot()
		if final.State == StateComplete {
			if err := e.store.DropPending(bctx, t.Tenant, key); err != nil {
				e.log.WarnContext(bctx, "drop the ids of a finished purge", "tenant", t.Tenant, "error", err)
			}
		}
		e.log.InfoContext(bctx, "erasure finished", "tenant", t.Tenant, "receipt", final.ID, "state", final.State)
		if e.onFinished != nil {
			e.onFinished(bctx, final)
		}
	}()
	timer := time.NewTimer(e.wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
	}
	return snapshot()
}

// run erases one place, turning its error into the receipt's words.
func (e *Eraser) run(ctx context.Context, p Place, t Target) PlaceReceipt {
	out, err := p.Erase(ctx, t)
	pr := PlaceReceipt{Place: p.Name(), Erased: out.Erased, Note: out.Note, State: StateErased}
	switch {
	case errors.Is(err, ErrCannot):
		pr.State, pr.Note = StateNotErased, err.Error()
	case err != nil:
		pr.State, pr.Note = StateFailed, err.Error()
		e.log.WarnContext(ctx, "erasure place failed", "tenant", t.Tenant, "place", p.Name(), "error", err)
	}
	if e.outcomes != nil {
		e.outcomes.WithLabelValues(pr.Place, pr.State).Inc()
	}
	return pr
}

func (e *Eraser) put(ctx context.Context, r Receipt) {
	if err := e.store.Put(ctx, r); err != nil {
		e.log.WarnContext(ctx, "keep erasure receipt", "tenant", r.Tenant, "receipt", r.ID, "error", err)
	}
}

// Receipt reads a purge's receipt by id.
func (e *Eraser) Receipt(ctx context.Context, tenant, id string) (Receipt, error) {
	r, err := e.store.Get(ctx, tenant, id)
	if err != nil {
		return Receipt{}, fmt.Errorf("read erasure receipt %s: %w", id, err)
	}
	return r, nil
}

// Wait waits for the purges running in the background (for Stop).
func (e *Eraser) Wait() { e.wg.Wait() }

// subjectHash names a subject's pending purge without the subject.
func subjectHash(tenant, subject string) string {
	h := sha256.Sum256([]byte(tenant + "\x00" + subject))
	return hex.EncodeToString(h[:16])
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
