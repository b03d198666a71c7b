package memory

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched by every validation error (errors.Is).
var ErrInvalid = errors.New("invalid")

// FieldError names the offending field, what was wrong and the limit.
type FieldError struct {
	Field  string // JSON path, e.g. "events[3].content"
	Reason string // e.g. "is longer than 8192 characters"
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s %s", e.Field, e.Reason) }

// Is makes errors.Is(err, ErrInvalid) true for field errors.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// prefixed returns err with its field placed under prefix ("events[3]").
func prefixed(prefix string, err error) error {
	var fe *FieldError
	if prefix == "" || !errors.As(err, &fe) {
		return err
	}
	return &FieldError{Field: prefix + "." + fe.Field, Reason: fe.Reason}
}
