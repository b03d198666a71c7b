package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 16 << 20

// Error is the JSON body of every error response.
type Error struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	Code  string `json:"code"`
}

// WriteJSON writes v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteError writes an error body; validation errors name their field.
func WriteError(w http.ResponseWriter, status int, code string, err error) {
	body := Error{Error: err.Error(), Code: code}
	var fe *memory.FieldError
	if errors.As(err, &fe) {
		body.Field = fe.Field
	}
	WriteJSON(w, status, body)
}

// Unavailable answers 503 with Retry-After.
func Unavailable(w http.ResponseWriter, retryAfter time.Duration, err error) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(retryAfter.Seconds()))))
	WriteError(w, http.StatusServiceUnavailable, "unavailable", err)
}

// DecodeJSON reads a bounded JSON body into v, rejecting unknown fields and
// trailing data; errors are client errors.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("request body is larger than %d bytes", MaxBodyBytes)
		}
		if errors.Is(err, io.EOF) {
			return errors.New("request body is empty")
		}
		return fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return errors.New("request body has data after the JSON value")
	}
	return nil
}
