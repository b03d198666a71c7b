package auditlog

import "errors"

// ErrCannotRedact is answered by a log that cannot redact entries.
var ErrCannotRedact = errors.New("this audit log cannot redact entries")
