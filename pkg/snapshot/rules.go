package snapshot

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Rules are what an import checks beyond memory.Memory.Validate.
type Rules struct {
	// Now is the import's clock: missing timestamps get it, and the
	// future bound of created_at and modified_at is Now+MaxFutureSkew.
	Now time.Time
	// MaxFutureSkew is memory.DefaultMaxFutureSkew when zero.
	MaxFutureSkew time.Duration
	// KnownDomain reports whether a domain is in the registry; nil checks
	// only the domain's form (lowercase letters, digits, inner hyphens).
	KnownDomain func(string) bool
}

// checkImport applies the import's own checks to a record whose defaults
// are filled: id form and length, counters not negative, importance and
// confidence in [0, 1], domain in the registry and timestamps in the
// window. Vectors are not checked here: one of another model or width is
// dropped and the record embedded again by the importer.
func checkImport(m *memory.Memory, r Rules) error {
	if !validID(m.ID) {
		return &memory.FieldError{Field: "id", Reason: "must be 1-128 characters of [A-Za-z0-9_.:-], without \"..\" and not starting with \".\""}
	}
	for _, c := range []struct {
		field string
		v     int
	}{{"access_count", m.AccessCount}, {"repetition_count", m.RepetitionCount}, {"success_count", m.SuccessCount}} {
		if c.v < 0 {
			return &memory.FieldError{Field: c.field, Reason: "must not be negative (got " + strconv.Itoa(c.v) + ")"}
		}
	}
	if m.Epoch < 0 {
		return &memory.FieldError{Field: "epoch", Reason: "must not be negative"}
	}
	for _, f := range []struct {
		field string
		v     float64
	}{{"importance", m.Importance}, {"confidence", m.Confidence}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return &memory.FieldError{Field: f.field, Reason: "must be between 0 and 1"}
		}
	}
	if !validDomain(m.Domain) {
		return &memory.FieldError{Field: "domain", Reason: "must be 1-64 lowercase letters, digits and inner hyphens"}
	}
	if r.KnownDomain != nil && !r.KnownDomain(m.Domain) {
		return &memory.FieldError{Field: "domain", Reason: "is not in the domain registry (got \"" + m.Domain + "\")"}
	}
	skew := r.MaxFutureSkew
	if skew <= 0 {
		skew = memory.DefaultMaxFutureSkew
	}
	for _, t := range []struct {
		field string
		v     time.Time
	}{{"created_at", m.CreatedAt}, {"modified_at", m.ModifiedAt}, {"last_accessed", m.LastAccessed}, {"valid_from", m.ValidFrom}} {
		if err := memory.CheckTime(t.field, t.v, r.Now, skew); err != nil {
			return err
		}
	}
	if m.InvalidAt != nil {
		if err := memory.CheckTime("invalid_at", *m.InvalidAt, r.Now, skew); err != nil {
			return err
		}
	}
	if m.ValidUntil != nil {
		if err := memory.CheckTime("valid_until", *m.ValidUntil, r.Now, skew); err != nil {
			return err
		}
		if m.ValidUntil.Before(m.ValidSince()) {
			return &memory.FieldError{Field: "valid_until", Reason: "is before valid_from"}
		}
	}
	return nil
}

func validID(id string) bool {
	if id == "" || len(id) > memory.MaxIDChars || id[0] == '.' || strings.Contains(id, "..") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.:-", c) >= 0) {
			return false
		}
	}
	return true
}

func validDomain(d string) bool {
	if d == "" || len(d) > memory.MaxNameChars {
		return false
	}
	for i := 0; i < len(d); i++ {
		c := d[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}
