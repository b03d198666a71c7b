package api

import "fmt"

// States of an erasure receipt and of its places (erase's constants).
const (
	ErasureRunning    = "running"    // the receipt: places still pending
	ErasureComplete   = "complete"   // the receipt: every place erased
	ErasureIncomplete = "incomplete" // the receipt: a place failed or could not erase
	ErasurePending    = "pending"    // a place not done yet
	ErasureErased     = "erased"     // a place holds none of the subject's text now
	ErasureFailed     = "failed"     // a place erred; Note says why
	ErasureNotErased  = "not_erased" // a place that cannot erase; Note says why
)

// Done reports whether the erasure has finished, complete or not.
func (r ErasureReceipt) Done() bool { return r.State != ErasureRunning }

// States of a reindex (embedder's constants).
const (
	ReindexQueued   = "queued"   // published, not running (or waiting for a retry)
	ReindexAdopting = "adopting" // bringing other models' memories over
	ReindexRunning  = "running"  // clearing old vectors and re-embedding
	ReindexDone     = "done"     // every memory is on the configured model
	ReindexFailed   = "failed"   // gave up; Error says why
)

// Terminal reports whether the reindex has ended, done or failed.
func (s ReindexStatus) Terminal() bool { return s.State == ReindexDone || s.State == ReindexFailed }

func (e *LineError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("line %d: %s %s", e.Line, e.Field, e.Message)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Message)
}

// Trailers of GET /v1/export: the count of memories sent, and the error
// that stopped the stream early. A stream without the count is truncated.
const (
	ExportCountTrailer = "Recollect-Export-Count"
	ExportErrorTrailer = "Recollect-Export-Error"
)

// NDJSONContentType is the media type of GET /v1/export and POST /v1/import.
const NDJSONContentType = "application/x-ndjson"
