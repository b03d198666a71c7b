package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/felixge/httpsnoop"
	"github.com/prometheus/client_golang/prometheus"
)

// unmatchedRoute labels the requests no route matched (404, 405), so an
// unknown path cannot grow the metric's label set.
const unmatchedRoute = "unmatched"

// newLatency registers recollect_query_duration_seconds: every request of
// the listener, by route pattern and status code (the error rate is the
// share of 4xx and 5xx). A registry that has it already (two servers on
// one registry) shares it.
func newLatency(reg prometheus.Registerer) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "recollect_query_duration_seconds",
		Help:    "HTTP API latency by route pattern and status code, every route of the listener.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}}, []string{"route", "code"})
	if reg == nil {
		return h
	}
	if err := reg.Register(h); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if existing, ok := are.ExistingCollector.(*prometheus.HistogramVec); ok {
				return existing
			}
		}
		panic(fmt.Errorf("register recollect_query_duration_seconds: %w", err))
	}
	return h
}

// observe times every request, outermost (authentication's refusals
// included), under the pattern of the route it matches.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := unmatchedRoute
		if _, pattern := s.mux.Handler(r); pattern != "" {
			route = pattern
		}
		m := httpsnoop.CaptureMetrics(next, w, r)
		s.latency.WithLabelValues(route, strconv.Itoa(m.Code)).Observe(m.Duration.Seconds())
	})
}

// unmatched answers a request no route matches as JSON, like every other
// error: 404 not_found, or 405 method_not_allowed with the Allow header
// the mux computed. Anything else the mux answers (a redirect to the
// cleaned path) passes through.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{header: http.Header{}}
	s.mux.ServeHTTP(rec, r)
	switch rec.code {
	case http.StatusNotFound:
		WriteError(w, http.StatusNotFound, "no_route", fmt.Errorf("no route %s %s (the API is described at /openapi.json)", r.Method, r.URL.Path))
	case http.StatusMethodNotAllowed:
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		WriteError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Errorf("%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.ReplaceAll(allow, ",", ", ")))
	default:
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.code)
		_, _ = w.Write(rec.body.Bytes())
	}
}

// recorder keeps what the mux answers an unmatched request.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(p)
}
