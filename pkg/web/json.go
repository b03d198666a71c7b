package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 16 << 20

// Error is the JSON body of every error response.
type Error = api.Error

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

// DecodeJSON reads a bounded JSON body into v with strictjson.Unmarshal:
// unknown fields, repeated keys and trailing data are refused with a
// *memory.FieldError naming the field (a client error).
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &memory.FieldError{Field: "body", Reason: fmt.Sprintf("is larger than %d bytes", MaxBodyBytes)}
		}
		return fmt.Errorf("read request body: %w", err)
	}
	return strictjson.Unmarshal(body, v)
}
