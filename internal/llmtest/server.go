// Package llmtest is a scripted OpenAI-compatible server for tests of code
// that calls a chat or embedding model: a real HTTP server on loopback that
// answers POST /v1/chat/completions and POST /v1/embeddings from a script
// (queued replies, then a handler), and records every request.
//
//	s := llmtest.New(t)
//	s.Push(llmtest.Status(429), llmtest.Text(`{"facts":[]}`))
//	cfg.URL = s.URL() // http://127.0.0.1:port/v1
//	... call the code under test ...
//	reqs := s.Requests()
//
// A chat request with nothing scripted fails the test and gets a 500. An
// embedding request with nothing scripted gets deterministic bag-of-words
// vectors, so embedding tests work without a script.
package llmtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Endpoints the server answers, as recorded in Request.Endpoint.
const (
	EndpointChat       = "/v1/chat/completions"
	EndpointEmbeddings = "/v1/embeddings"
)

// DefaultEmbeddingDims is the length of the vectors made up for unscripted
// embedding requests.
const DefaultEmbeddingDims = 64

// Server is the scripted server. Its methods are safe for concurrent use.
type Server struct {
	t       testing.TB
	srv     *httptest.Server
	o       options
	closing chan struct{} // closed by Close: delayed and held replies end

	mu          sync.Mutex
	chats       []Reply // queued chat replies, oldest first
	embeds      []Reply // queued embedding replies, oldest first
	handler     func(Request) Reply
	requests    []Request
	gate        chan struct{} // non-nil while held
	inFlight    int
	maxInFlight int
	closed      bool
	closeOnce   sync.Once
}

// Option configures a Server.
type Option func(*options)

type options struct {
	apiKey           string
	dims             int
	rejectRespFormat bool
}

// WithAPIKey makes the server demand "Authorization: Bearer key", answering
// 401 otherwise, as a hosted API does.
func WithAPIKey(key string) Option { return func(o *options) { o.apiKey = key } }

// WithEmbeddingDims sets the length of made-up embedding vectors.
func WithEmbeddingDims(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.dims = n
		}
	}
}

// WithoutResponseFormat makes the server reject any chat request carrying
// response_format with a 400 naming it, like servers without JSON mode.
func WithoutResponseFormat() Option { return func(o *options) { o.rejectRespFormat = true } }

// New starts a server on 127.0.0.1; it is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := options{dims: DefaultEmbeddingDims}
	for _, opt := range opts {
		opt(&o)
	}
	s := &Server{t: t, o: o, closing: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+EndpointChat, s.serve)
	mux.HandleFunc("POST "+EndpointEmbeddings, s.serve)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the API's base URL, ending in /v1, as an OpenAI client expects it.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases held and delayed requests and stops the server. The test's
// cleanup calls it; calling it earlier simulates a server that went away.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Push queues chat replies, answered in order before the handler is asked.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats = append(s.chats, replies...)
}

// PushEmbedding queues embedding replies, answered in order before the
// handler is asked.
func (s *Server) PushEmbedding(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embeds = append(s.embeds, replies...)
}

// Handle answers every request (either endpoint; see Request.Endpoint) for
// which no queued reply is left. It may be called concurrently. nil removes
// the handler.
func (s *Server) Handle(h func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns every request received so far, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Pending is how many queued replies (both endpoints) are not used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.chats) + len(s.embeds)
}

// Hold makes requests wait before answering until release is called, the
// client goes away or the server closes. Requests already waiting in Hold
// stay held until release.
func (s *Server) Hold() (release func()) {
	gate := make(chan struct{})
	s.mu.Lock()
	s.gate = gate
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.gate == gate {
				s.gate = nil
			}
			s.mu.Unlock()
			close(gate)
		})
	}
}

// InFlight is how many requests are being answered now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// MaxInFlight is the most requests ever answered at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}
