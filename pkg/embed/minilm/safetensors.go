package minilm

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// safetensors is a parsed safetensors file: an 8-byte little-endian header
// length, a JSON header naming each tensor's dtype, shape and byte range,
// then the raw data. It reads the file in place.
type safetensors struct {
	tensors map[string]tensorInfo
	data    string
}

type tensorInfo struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

var dtypeSizes = map[string]int64{"F16": 2, "F32": 4, "I64": 8, "BF16": 2}

func parseSafetensors(file string) (*safetensors, error) {
	if len(file) < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes is too short for a header", len(file))
	}
	n := binary.LittleEndian.Uint64([]byte(file[:8]))
	if n > uint64(len(file)-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes overruns a %d-byte file", n, len(file))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(file[8:8+n]), &raw); err != nil {
		return nil, fmt.Errorf("safetensors: decode header: %w", err)
	}
	st := &safetensors{tensors: make(map[string]tensorInfo, len(raw)), data: file[8+n:]}
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var ti tensorInfo
		if err := json.Unmarshal(msg, &ti); err != nil {
			return nil, fmt.Errorf("safetensors: decode tensor %s: %w", name, err)
		}
		size, ok := dtypeSizes[ti.DType]
		if !ok {
			return nil, fmt.Errorf("safetensors: tensor %s has unknown dtype %q", name, ti.DType)
		}
		elems := int64(1)
		for _, d := range ti.Shape {
			if d < 0 || elems > math.MaxInt32 {
				return nil, fmt.Errorf("safetensors: tensor %s has bad shape %v", name, ti.Shape)
			}
			elems *= int64(d)
		}
		lo, hi := ti.Offsets[0], ti.Offsets[1]
		if lo < 0 || hi < lo || hi > int64(len(st.data)) || hi-lo != elems*size {
			return nil, fmt.Errorf("safetensors: tensor %s spans bytes [%d,%d) of %d for shape %v %s", name, lo, hi, len(st.data), ti.Shape, ti.DType)
		}
		st.tensors[name] = ti
	}
	return st, nil
}

// float32s returns tensor name as float32, converting from fp16, after
// checking it has the given shape.
func (st *safetensors) float32s(name string, shape ...int) ([]float32, error) {
	ti, ok := st.tensors[name]
	if !ok {
		return nil, fmt.Errorf("safetensors: no tensor %s", name)
	}
	if !slices.Equal(ti.Shape, shape) {
		return nil, fmt.Errorf("safetensors: tensor %s has shape %v, want %v", name, ti.Shape, shape)
	}
	raw := st.data[ti.Offsets[0]:ti.Offsets[1]]
	switch ti.DType {
	case "F16":
		out := make([]float32, len(raw)/2)
		for i := range out {
			out[i] = halfToFloat(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
		}
		return out, nil
	case "F32":
		out := make([]float32, len(raw)/4)
		for i := range out {
			b := raw[4*i : 4*i+4]
			out[i] = math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
		}
		return out, nil
	}
	return nil, fmt.Errorf("safetensors: tensor %s is %s, want F16 or F32", name, ti.DType)
}

// halfToFloat converts an IEEE 754 binary16 value to float32 exactly.
func halfToFloat(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1F
	mant := uint32(h & 0x3FF)
	switch {
	case exp == 0x1F: // Inf or NaN
		return math.Float32frombits(sign | 0x7F800000 | mant<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0: // signed zero
		return math.Float32frombits(sign)
	}
	// Subnormal: shift the mantissa up until it is normal.
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3FF)<<13)
}
