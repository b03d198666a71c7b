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
	half    *[1 << 16]float32
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
	st := &safetensors{tensors: make(map[string]tensorInfo, len(raw)), data: file[8+n:], half: halfTable()}
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

// float32s returns tensor name as float32 after checking it has the
// given shape.
func (st *safetensors) float32s(name string, shape ...int) ([]float32, error) {
	ti, err := st.lookup(name, shape...)
	if err != nil {
		return nil, err
	}
	out := make([]float32, (ti.Offsets[1]-ti.Offsets[0])/dtypeSizes[ti.DType])
	width := 1
	if len(shape) > 0 {
		width = shape[len(shape)-1]
	}
	return out, st.rows(name, ti, width, func(i int, row []float32) { copy(out[i*width:], row) })
}

// packed returns tensor name, an n×k matrix, packed in panels for gemm
// (see gemm.go), converting row by row straight into the packed layout.
func (st *safetensors) packed(name string, n, k int) ([]float32, error) {
	ti, err := st.lookup(name, n, k)
	if err != nil {
		return nil, err
	}
	if n%panelWidth != 0 {
		return nil, fmt.Errorf("safetensors: tensor %s has %d rows, not a multiple of %d", name, n, panelWidth)
	}
	out := make([]float32, n*k)
	err = st.rows(name, ti, k, func(j int, row []float32) {
		dst := out[(j/panelWidth)*k*panelWidth+j%panelWidth:]
		for p, v := range row {
			dst[p*panelWidth] = v
		}
	})
	return out, err
}

// packedHalf is packed for an F16 tensor, keeping the fp16 bits.
func (st *safetensors) packedHalf(name string, n, k int) ([]uint16, error) {
	ti, err := st.lookup(name, n, k)
	if err != nil {
		return nil, err
	}
	if ti.DType != "F16" {
		return nil, fmt.Errorf("safetensors: tensor %s is %s, want F16", name, ti.DType)
	}
	if n%panelWidth != 0 {
		return nil, fmt.Errorf("safetensors: tensor %s has %d rows, not a multiple of %d", name, n, panelWidth)
	}
	raw := st.data[ti.Offsets[0]:ti.Offsets[1]]
	out := make([]uint16, n*k)
	for j := 0; j < n; j++ {
		dst := out[(j/panelWidth)*k*panelWidth+j%panelWidth:]
		src := raw[j*2*k : (j+1)*2*k]
		for p := 0; p < k; p++ {
			dst[p*panelWidth] = uint16(src[2*p]) | uint16(src[2*p+1])<<8
		}
	}
	return out, nil
}

func (st *safetensors) lookup(name string, shape ...int) (tensorInfo, error) {
	ti, ok := st.tensors[name]
	if !ok {
		return ti, fmt.Errorf("safetensors: no tensor %s", name)
	}
	if !slices.Equal(ti.Shape, shape) {
		return ti, fmt.Errorf("safetensors: tensor %s has shape %v, want %v", name, ti.Shape, shape)
	}
	return ti, nil
}

// rows converts the tensor to float32, width elements at a time, and hands
// each row to fn.
func (st *safetensors) rows(name string, ti tensorInfo, width int, fn func(i int, row []float32)) error {
	raw := st.data[ti.Offsets[0]:ti.Offsets[1]]
	if width == 0 {
		return nil
	}
	row := make([]float32, width)
	switch ti.DType {
	case "F16":
		for i := 0; i < len(raw)/(2*width); i++ {
			src := raw[i*2*width : (i+1)*2*width]
			for c := range row {
				row[c] = st.half[uint16(src[2*c])|uint16(src[2*c+1])<<8]
			}
			fn(i, row)
		}
		return nil
	case "F32":
		for i := 0; i < len(raw)/(4*width); i++ {
			src := raw[i*4*width : (i+1)*4*width]
			for c := range row {
				b := src[4*c : 4*c+4]
				row[c] = math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
			}
			fn(i, row)
		}
		return nil
	}
	return fmt.Errorf("safetensors: tensor %s is %s, want F16 or F32", name, ti.DType)
}

// halfTable maps every fp16 bit pattern to its float32 value: a lookup
// is cheaper than converting each of the model's 23 M weights.
func halfTable() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = halfToFloat(uint16(h))
	}
	return t
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
