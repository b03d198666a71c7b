package snapshot

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Prepare makes a decoded record ready to store for tenant: the tenant is
// always the caller's (a file never chooses it), missing timestamps are
// filled (created now, modified when created), and the record is validated.
// Beyond Validate, a record must pass the import's own checks (Rules). A
// bad record is a *LineError for line.
func Prepare(m *memory.Memory, tenant string, line int, r Rules) error {
	m.Tenant = tenant
	if m.CreatedAt.IsZero() {
		m.CreatedAt = r.Now.UTC()
	}
	if m.ModifiedAt.IsZero() {
		m.ModifiedAt = m.CreatedAt
	}
	err := m.Validate()
	if err == nil {
		err = checkImport(m, r)
	}
	if err != nil {
		le := &LineError{Line: line, Message: err.Error()}
		var fe *memory.FieldError
		if errors.As(err, &fe) {
			le.Field, le.Message = fe.Field, fe.Reason
		}
		return le
	}
	return nil
}

// Check reads a whole stream as an import would, with a placeholder
// tenant, and returns its number of records and its bad lines (at most
// maxErrors, all when maxErrors is not positive). Duplicate ids are bad
// lines: which of two records should win is not the importer's guess. The
// error is for a stream that cannot be read on: an unreadable reader or a
// *TooLongError.
func Check(r io.Reader, maxErrors int, now time.Time) (int, []LineError, error) {
	rd := NewReader(r, MaxLineBytes)
	seen := IDs{}
	var bad []LineError
	records := 0
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return records, bad, nil
		}
		if err == nil {
			err = Prepare(&m, memory.DefaultTenant, rd.Line(), Rules{Now: now})
		}
		if err == nil {
			err = seen.Add(m.ID, rd.Line())
		}
		var le *LineError
		switch {
		case err == nil:
			records++
		case errors.As(err, &le):
			if maxErrors <= 0 || len(bad) < maxErrors {
				bad = append(bad, *le)
			}
		default:
			return records, bad, err
		}
	}
}

// IDs remembers the line of each id of a stream.
type IDs map[string]int

// Add records id at line, or returns a *LineError naming the line that had
// it first.
func (s IDs) Add(id string, line int) error {
	if first, ok := s[id]; ok {
		return &LineError{Line: line, Field: "id", Message: fmt.Sprintf("repeats the id of line %d", first)}
	}
	s[id] = line
	return nil
}
