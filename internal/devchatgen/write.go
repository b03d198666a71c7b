package devchatgen

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/recollect-dev/recollect/pkg/eval"
)

// Encode writes set as indented JSON, one field order, so that the same
// set always gives the same bytes.
func Encode(set *eval.DevChat) ([]byte, error) {
	data, err := json.MarshalIndent(set, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode devchat set: %w", err)
	}
	return append(data, '\n'), nil
}

// WriteGzip writes the encoded set gzip-compressed, without a name or time
// in the header.
func WriteGzip(w io.Writer, set *eval.DevChat) error {
	data, err := Encode(set)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("compress devchat set: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress devchat set: %w", err)
	}
	return nil
}

func sortStrings(s []string) { sort.Strings(s) }
