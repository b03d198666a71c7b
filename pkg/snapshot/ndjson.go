package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// MaxLineBytes bounds one NDJSON line. The longest record (8192 characters
// of content and as much evidence, up to 4 bytes each, plus a 3072-dimension
// vector in JSON) stays well under it.
const MaxLineBytes = 1 << 20

// ContentType is the media type of a memory stream.
const ContentType = "application/x-ndjson"

// LineError is one bad line of a stream: its 1-based number, the field at
// fault when one is, and why.
type LineError struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"error"`
}

// TooLongError is a line over the reader's limit. The stream cannot be
// read past it.
type TooLongError struct {
	Line  int
	Limit int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.Line, e.Limit)
}

// Reader reads memories from NDJSON, one per line. Blank lines are skipped
// but counted, so line numbers match an editor's.
type Reader struct {
	br    *bufio.Reader
	limit int
	line  int
	raw   []byte
}

// NewReader reads r with lines of at most limit bytes (MaxLineBytes when
// limit is not positive).
func NewReader(r io.Reader, limit int) *Reader {
	if limit <= 0 {
		limit = MaxLineBytes
	}
	// Room for the limit plus "\r\n", so a line of exactly limit bytes fits.
	return &Reader{br: bufio.NewReaderSize(r, limit+2), limit: limit}
}

// Line is the number of the line Next returned last.
func (r *Reader) Line() int { return r.line }

// Bytes is the text of the line Next decoded last, without surrounding
// white space. It is valid only until the next call of Next.
func (r *Reader) Bytes() []byte { return r.raw }

// Next returns the next memory, exactly as the line has it (no defaults,
// no validation). It returns io.EOF at the end, a *TooLongError for a line
// over the limit (the stream cannot go on), a *LineError for a line that is
// not a memory (the next call reads the line after it), and the
// underlying reader's error otherwise.
func (r *Reader) Next() (memory.Memory, error) {
	for {
		raw, err := r.br.ReadSlice('\n')
		if len(raw) > 0 || err == nil || errors.Is(err, bufio.ErrBufferFull) {
			r.line++
		}
		if errors.Is(err, bufio.ErrBufferFull) || len(bytes.TrimRight(raw, "\r\n")) > r.limit {
			return memory.Memory{}, &TooLongError{Line: r.line, Limit: r.limit}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return memory.Memory{}, err
		}
		line := bytes.TrimSpace(raw)
		r.raw = line
		if len(line) == 0 {
			if err != nil {
				return memory.Memory{}, io.EOF
			}
			continue
		}
		return r.decode(line)
	}
}

func (r *Reader) decode(line []byte) (memory.Memory, error) {
	var m memory.Memory
	if err := strictjson.Unmarshal(line, &m); err != nil {
		le := &LineError{Line: r.line, Message: "not a memory record: " + err.Error()}
		var fe *memory.FieldError
		if errors.As(err, &fe) {
			le.Field, le.Message = fe.Field, "not a memory record: "+fe.Reason
			if fe.Field == "body" {
				le.Field = ""
				le.Message = "not a memory record (one JSON object per line): " + fe.Reason
			}
		}
		return memory.Memory{}, le
	}
	return m, nil
}

func (e *LineError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("line %d: %s %s", e.Line, e.Field, e.Message)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Message)
}
