package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds a request body; tests never need more.
const maxBody = 16 << 20

// serve answers both endpoints: record, pick the reply, wait, write.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "read body: "+err.Error(), "invalid_request_error")
		return
	}
	req, parseErr := parseRequest(r, body)

	s.mu.Lock()
	req.N = len(s.requests) + 1
	s.requests = append(s.requests, req)
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	gate := s.gate
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	if gate != nil && !s.wait(r, gate, 0) {
		return
	}
	if s.o.apiKey != "" && req.APIKey != s.o.apiKey {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_api_key")
		return
	}
	if parseErr != nil {
		writeError(w, http.StatusBadRequest, parseErr.Error(), "invalid_request_error")
		return
	}
	if s.o.rejectRespFormat && req.ResponseFormat != "" {
		writeError(w, http.StatusBadRequest, "response_format is not supported by this server", "invalid_request_error")
		return
	}
	reply, ok := s.next(req)
	if !ok {
		s.unscripted(req)
		writeError(w, http.StatusInternalServerError, "llmtest: no scripted reply", "server_error")
		return
	}
	if reply.Delay > 0 && !s.wait(r, nil, reply.Delay) {
		return
	}
	s.write(w, req, reply)
}

// next pops the endpoint's queue or asks the handler; an embedding request
// with neither gets made-up vectors.
func (s *Server) next(req Request) (Reply, bool) {
	s.mu.Lock()
	queue := &s.chats
	if req.Endpoint == EndpointEmbeddings {
		queue = &s.embeds
	}
	if len(*queue) > 0 {
		reply := (*queue)[0]
		*queue = (*queue)[1:]
		s.mu.Unlock()
		return reply, true
	}
	h := s.handler
	s.mu.Unlock()
	if h != nil {
		return h(req), true
	}
	return Reply{}, req.Endpoint == EndpointEmbeddings
}

// unscripted fails the test, unless it is already over.
func (s *Server) unscripted(req Request) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		s.t.Errorf("llmtest: chat request #%d (model %q, last user message %q) has no scripted reply: Push one or set Handle",
			req.N, req.Model, req.LastUser())
	}
}

// wait blocks until gate closes or d passes (d > 0), and reports false when
// the client left or the server closed first.
func (s *Server) wait(r *http.Request, gate chan struct{}, d time.Duration) bool {
	var timer <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-gate:
		return true
	case <-timer:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

func (s *Server) write(w http.ResponseWriter, req Request, reply Reply) {
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(reply.RetryAfter.Seconds()))))
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.Raw)
	case status >= 400:
		msg := reply.Error
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeError(w, status, msg, errorType(status))
	case req.Endpoint == EndpointEmbeddings:
		writeJSON(w, status, s.embeddingResponse(req, reply))
	default:
		writeJSON(w, status, chatResponse(req, reply))
	}
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		return "invalid_api_key"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes OpenAI's error shape.
func writeError(w http.ResponseWriter, status int, msg, typ string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

// words counts whitespace-separated words, at least one, as a stand-in for
// tokens.
func words(texts ...string) int {
	n := 0
	for _, t := range texts {
		n += len(strings.Fields(t))
	}
	return max(n, 1)
}

func requestID(req Request) string { return fmt.Sprintf("llmtest-%d", req.N) }
