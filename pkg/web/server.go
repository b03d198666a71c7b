// Package web provides the one HTTP listener every process serves: health,
// readiness and metrics, plus the routes of the modules it runs.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/recollect-dev/recollect/pkg/openapi"
)

// Config is the listener's configuration.
type Config struct {
	Addr            string
	ShutdownTimeout time.Duration
	// Pprof serves Go's runtime profiles under /debug/pprof/ (behind the
	// API keys when they are on), for operators chasing CPU or memory.
	Pprof bool
}

// RegisterFlags adds the listener flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.Addr, prefix+"http-addr", "127.0.0.1:7700", "HTTP listen address (health, readiness, metrics and the module APIs)")
	fs.DurationVar(&c.ShutdownTimeout, prefix+"http-shutdown-timeout", 15*time.Second, "how long in-flight HTTP requests may take to finish on shutdown")
	fs.BoolVar(&c.Pprof, prefix+"debug-pprof", false, "serve Go's runtime profiles (heap, CPU, goroutines) under /debug/pprof/, behind the API keys when they are on")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("http-addr %q: %w", c.Addr, err)
	}
	if c.ShutdownTimeout <= 0 {
		return fmt.Errorf("http-shutdown-timeout must be positive")
	}
	return nil
}

// Loopback reports whether the address only listens on loopback.
func (c *Config) Loopback() bool {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server is the process's HTTP server.
type Server struct {
	cfg      Config
	mux      *http.ServeMux
	srv      *http.Server
	ln       net.Listener
	log      *slog.Logger
	ready    func() error
	failed   chan error
	wrap     []func(http.Handler) http.Handler
	latency  *prometheus.HistogramVec
	Registry *prometheus.Registry

	mu       sync.Mutex
	patterns []string
}

// New builds the server; ready answers /readyz (nil = ready).
func New(cfg Config, reg *prometheus.Registry, ready func() error, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, mux: http.NewServeMux(), log: log, ready: ready, failed: make(chan error, 1), Registry: reg,
		latency: newLatency(reg)}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok\n"))
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if err := s.ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready: " + err.Error() + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s.mux.Handle("GET /openapi.json", openapi.Handler())
	s.patterns = []string{"GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.json"}
	if cfg.Pprof {
		// Not API routes: kept out of patterns (and the API description).
		s.mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		s.mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		s.mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		s.mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		s.mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	return s
}

// Handle registers a module route (Go 1.22 patterns, e.g. "POST /v1/recall").
// Every route gets a server span named after its pattern.
func (s *Server) Handle(pattern string, h http.Handler) {
	name := pattern
	s.mux.Handle(pattern, otelhttp.NewHandler(h, name))
	s.mu.Lock()
	s.patterns = append(s.patterns, pattern)
	s.mu.Unlock()
}

// Patterns lists every registered route pattern, the probes included, in
// registration order (so the API description can be checked against them).
func (s *Server) Patterns() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.patterns...)
}

// Use wraps every route, the probes included, in mw (e.g. authentication);
// the first added runs first. Call it before Listen.
func (s *Server) Use(mw func(http.Handler) http.Handler) {
	s.wrap = append(s.wrap, mw)
}

// Listen binds the address; Serve may then run. Separate so that a bind
// error stops start-up.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	s.ln = ln
	var h http.Handler = s.starting(s.mux)
	for i := len(s.wrap) - 1; i >= 0; i-- {
		h = s.wrap[i](h)
	}
	h = s.observe(h)
	s.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.failed <- err
		}
	}()
	s.log.Info("http listening", "addr", ln.Addr().String())
	return nil
}

// startingRetryAfter is the Retry-After of a route asked for before its
// module has registered it.
const startingRetryAfter = 2 * time.Second

// starting answers 503 with Retry-After, not the mux's 404, for a route
// that is not registered while the process is not ready: the listener is
// up before the modules register their routes, so a client of a
// restarting worker would otherwise read "no such endpoint". Once ready,
// an unmatched request gets a JSON 404 or 405 (unmatched).
func (s *Server) starting(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := s.mux.Handler(r); pattern == "" {
			if err := s.ready(); err != nil {
				Unavailable(w, startingRetryAfter, fmt.Errorf("starting, retry: %w", err))
				return
			}
			s.unmatched(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() string {
	if s.ln == nil {
		return s.cfg.Addr
	}
	return s.ln.Addr().String()
}

// URL is the base URL of the bound address.
func (s *Server) URL() string {
	addr := s.Addr()
	if strings.HasPrefix(addr, "[::]") || strings.HasPrefix(addr, "0.0.0.0") {
		_, port, _ := net.SplitHostPort(addr)
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return "http://" + addr
}

// Failed reports a serve error after Listen.
func (s *Server) Failed() <-chan error { return s.failed }

// Shutdown stops accepting and waits for in-flight requests.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
