package remote

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// vector is a []float32 that travels as base64 of its little-endian bits:
// exact for every value (NaN payloads and -0 included) and about half the
// size of a JSON number array. Decoding also accepts a JSON array, so a
// request typed by hand (nats req) works.
type vector []float32

// MarshalText rather than MarshalJSON: encoding/json re-scans whatever a
// MarshalJSON returns, which made encoding twice as slow.
func (v vector) MarshalText() ([]byte, error) {
	raw := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	base64.StdEncoding.Encode(out, raw)
	return out, nil
}

// UnmarshalJSON rather than UnmarshalText: it also takes a JSON array, and
// it decodes faster.
func (v *vector) UnmarshalJSON(data []byte) error {
	switch {
	case string(data) == "null":
		*v = nil
		return nil
	case len(data) > 0 && data[0] == '[':
		var fs []float32
		if err := json.Unmarshal(data, &fs); err != nil {
			return fmt.Errorf("decode vector array: %w", err)
		}
		*v = fs
		return nil
	case len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"':
		return fmt.Errorf("decode vector: want a base64 string or an array")
	}
	enc := data[1 : len(data)-1]
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(raw, enc)
	if err != nil {
		return fmt.Errorf("decode vector base64: %w", err)
	}
	if n%4 != 0 {
		return fmt.Errorf("decode vector: %d bytes is not a whole number of float32s", n)
	}
	out := make([]float32, n/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	*v = out
	return nil
}
