package remote

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

// servedLocal is a local engine served over NATS, as the `store` target runs
// it, with the client another worker would hold.
type servedLocal struct {
	dir    string
	ns     *server.Server
	engine *local.Store
	srv    *Server
	client *Client
}

func startLocal(t testing.TB, ns *server.Server, dir string) *servedLocal {
	t.Helper()
	engine, err := local.Open(dir, local.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("open local store: %v", err)
	}
	srv, err := Serve(context.Background(), connect(t, ns), engine, nil)
	if err != nil {
		t.Fatalf("serve local store: %v", err)
	}
	sl := &servedLocal{dir: dir, ns: ns, engine: engine, srv: srv, client: NewClient(connect(t, ns))}
	t.Cleanup(func() { sl.stop(t) })
	return sl
}

// stop shuts the server and the engine; doing it twice is harmless.
func (sl *servedLocal) stop(t testing.TB) {
	t.Helper()
	if err := sl.srv.Stop(context.Background()); err != nil {
		t.Errorf("stop server: %v", err)
	}
	if err := sl.engine.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		t.Errorf("close local store: %v", err)
	}
}

// TestAcceptance runs the shared store suite through the client against
// the local engine.
func TestAcceptance(t *testing.T) {
	var mu sync.Mutex
	served := map[store.Store]*servedLocal{}
	storetest.Run(t, storetest.Harness{
		KnowsTerms: true,
		Open: func(t *testing.T) store.Store {
			sl := startLocal(t, startNATS(t), t.TempDir())
			mu.Lock()
			served[sl.client] = sl
			mu.Unlock()
			return sl.client
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			mu.Lock()
			old := served[s]
			mu.Unlock()
			if err := s.Close(); err != nil {
				t.Fatalf("close client: %v", err)
			}
			old.stop(t)
			sl := startLocal(t, old.ns, old.dir)
			mu.Lock()
			served[sl.client] = sl
			mu.Unlock()
			return sl.client
		},
	})
}
