package qdrant

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/recollect-dev/recollect/pkg/store"
)

// Vector names in every collection.
const (
	denseVector  = "dense"
	sparseVector = "bm25"
	// chunkVector is a multivector compared by MAX_SIM: a long memory's
	// chunk vectors followed by its dense vector, so that a one-vector
	// query scores it by the best of them (store.Query.Chunks).
	// Collections created before it have none; see Store.chunks.
	chunkVector = "chunks"
)

// Store is a store.Store over one Qdrant collection (one embedding model).
type Store struct {
	cfg        Config
	client     *qdrant.Client
	collection string
	dim        int
	// chunks says the collection has chunkVector. Without it chunk vectors
	// are validated but not kept, and Chunks searches score by the dense
	// vector alone.
	chunks bool
	log    *slog.Logger
	closed atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Open connects to the Qdrant at addr (host:port of its gRPC API), creates
// the collection for model at dim dimensions if it is missing, checks it if
// present (an error names any mismatch, the dimension first) and makes sure
// its payload indexes exist. Every call to Qdrant, these included, is bounded
// by cfg.Timeout and ctx.
func Open(ctx context.Context, cfg Config, addr, model string, dim int, log *slog.Logger) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("qdrant store config: %w", err)
	}
	if dim <= 0 {
		return nil, fmt.Errorf("qdrant store: dimension must be positive (got %d)", dim)
	}
	if model == "" {
		return nil, errors.New("qdrant store: embedding model name is empty")
	}
	host, port, err := splitAddr(addr)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.APIKey != "" && !cfg.UseTLS {
		log.Warn("qdrant api key sent without tls", "addr", addr)
	}
	// NewClient does not dial (grpc.NewClient is lazy); the compatibility
	// check is skipped because it would block for up to a minute ignoring
	// ctx. The health check below is the first contact, bounded by ctx.
	var tc *tls.Config
	if cfg.UseTLS && cfg.TLS.Set() {
		if tc, err = cfg.TLS.Config(&tls.Config{MinVersion: tls.VersionTLS13}); err != nil {
			return nil, fmt.Errorf("qdrant client for %s: %w", addr, err)
		}
	}
	client, err := qdrant.NewClient(&qdrant.Config{
		Host:                   host,
		Port:                   port,
		APIKey:                 cfg.APIKey,
		UseTLS:                 cfg.UseTLS,
		TLSConfig:              tc,
		SkipCompatibilityCheck: true,
	})
	if err != nil {
		return nil, fmt.Errorf("qdrant client for %s: %w", addr, err)
	}
	s := &Store{
		cfg:        cfg,
		client:     client,
		collection: CollectionName(cfg.CollectionPrefix, model, dim),
		dim:        dim,
		log:        log.With("collection", CollectionName(cfg.CollectionPrefix, model, dim)),
	}
	if err := s.setUp(ctx, addr); err != nil {
		_ = client.Close()
		return nil, err
	}
	return s, nil
}

// setUp checks the server and the collection.
func (s *Store) setUp(ctx context.Context, addr string) error {
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	health, err := s.client.HealthCheck(cctx)
	if err != nil {
		return fmt.Errorf("reach qdrant at %s: %w", addr, err)
	}
	s.log.Info("qdrant connected", "addr", addr, "version", health.GetVersion())
	if err := s.ensureCollection(ctx); err != nil {
		return err
	}
	if err := s.ensureIndexes(ctx); err != nil {
		return err
	}
	// Other models' collections hold memories recall cannot see until a
	// reindex adopts them; say so once, at start.
	if siblings, err := s.Siblings(ctx); err != nil {
		s.log.Warn("qdrant: cannot list other models' collections", "err", err)
	} else if len(siblings) > 0 {
		s.log.Warn("qdrant: collections of other embedding models exist; their memories are not recalled until "+
			"`recollect reindex` adopts them, tenant by tenant", "siblings", siblings)
	}
	return nil
}

// Collection is the name of the collection the store reads and writes.
func (s *Store) Collection() string { return s.collection }

// Close releases the connections. Calls after Close return store.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return store.ErrClosed
	}
	if err := s.client.Close(); err != nil {
		return fmt.Errorf("close qdrant client: %w", err)
	}
	return nil
}

// usable reports store.ErrClosed after Close and ctx's error if it is done.
func (s *Store) usable(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// callCtx bounds one call to Qdrant.
func (s *Store) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.Timeout)
}

// wrap names what failed; a call cut short by Close reports store.ErrClosed,
// and one Qdrant could not serve (unreachable, overloaded, timed out)
// wraps store.ErrUnavailable as well as err.
func (s *Store) wrap(err error, format string, args ...any) error {
	if s.closed.Load() {
		return fmt.Errorf(format+": %w", append(args, store.ErrClosed)...)
	}
	if transient(err) {
		return fmt.Errorf(format+": %w: %w", append(args, store.ErrUnavailable, err)...)
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// transient reports whether err is a gRPC failure that a later call may not
// meet: the server is unreachable, overloaded or did not answer in time.
func transient(err error) bool {
	if err == nil || errors.Is(err, store.ErrUnavailable) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Aborted:
		return true
	}
	return false
}

func splitAddr(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("qdrant address %q must be host:port: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("qdrant address %q: port must be 1-65535", addr)
	}
	if host == "" {
		host = "localhost"
	}
	return host, port, nil
}
