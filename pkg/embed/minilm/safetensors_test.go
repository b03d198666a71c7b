package minilm

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// safetensorsFile builds a file from a JSON header and data.
func safetensorsFile(header, data string) string {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	return string(n[:]) + header + data
}

func TestParseSafetensors(t *testing.T) {
	// 1.0, -2.0, 0.5 as fp16.
	data := "\x00\x3c\x00\xc0\x00\x38"
	file := safetensorsFile(`{"__metadata__":{"format":"pt"},"w":{"dtype":"F16","shape":[3],"data_offsets":[0,6]}}`, data)
	st, err := parseSafetensors(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.float32s("w", 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, -2, 0.5}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := st.float32s("w", 1, 3); err == nil {
		t.Error("wrong shape accepted")
	}
	if _, err := st.float32s("missing", 3); err == nil {
		t.Error("missing tensor accepted")
	}
}

func TestParseSafetensorsRejectsBadFiles(t *testing.T) {
	cases := []struct {
		name, file string
	}{
		{"empty", ""},
		{"short", "\x01\x00"},
		{"header overruns", "\xff\x00\x00\x00\x00\x00\x00\x00{}"},
		{"bad json", safetensorsFile(`{"w":`, "")},
		{"unknown dtype", safetensorsFile(`{"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,2]}}`, "\x00\x00")},
		{"offsets past end", safetensorsFile(`{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`, "\x00\x00")},
		{"size mismatch", safetensorsFile(`{"w":{"dtype":"F16","shape":[3],"data_offsets":[0,4]}}`, "\x00\x00\x00\x00")},
		{"negative dim", safetensorsFile(`{"w":{"dtype":"F16","shape":[-1],"data_offsets":[0,0]}}`, "")},
		{"reversed offsets", safetensorsFile(`{"w":{"dtype":"F16","shape":[0],"data_offsets":[2,0]}}`, "\x00\x00")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := parseSafetensors(c.file); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestHalfToFloat(t *testing.T) {
	cases := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3C00, 1},
		{0xBC00, -1},
		{0x3555, 0.333251953125},
		{0x7BFF, 65504},                          // largest normal
		{0x0400, float32(math.Ldexp(1, -14))},    // smallest normal
		{0x0001, float32(math.Ldexp(1, -24))},    // smallest subnormal
		{0x03FF, float32(math.Ldexp(1023, -24))}, // largest subnormal
		{0x7C00, float32(math.Inf(1))},
		{0xFC00, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		if got := halfToFloat(c.h); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %g, want %g", c.h, got, c.want)
		}
	}
	if got := halfToFloat(0x7E00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat(NaN) = %g", got)
	}
	if got := halfToFloat(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat(-0) = %g", got)
	}
}

func TestCheckConfigRejectsOtherModels(t *testing.T) {
	if err := checkConfig([]byte(configFile)); err != nil {
		t.Fatalf("embedded config: %v", err)
	}
	other := strings.Replace(configFile, `"num_hidden_layers": 6`, `"num_hidden_layers": 12`, 1)
	if other == configFile {
		t.Fatal("layer count not found in config.json")
	}
	if err := checkConfig([]byte(other)); err == nil {
		t.Fatal("12-layer config accepted")
	}
}

func TestSafetensorsPacked(t *testing.T) {
	// A 16×2 F32 matrix w[j][p] = 10·j + p, packed into one panel.
	var data []byte
	for j := 0; j < 16; j++ {
		for p := 0; p < 2; p++ {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(10*j+p)))
		}
	}
	file := safetensorsFile(`{"w":{"dtype":"F32","shape":[16,2],"data_offsets":[0,128]},"z":{"dtype":"F16","shape":[0],"data_offsets":[0,0]}}`, string(data))
	st, err := parseSafetensors(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.packed("w", 16, 2)
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.float32s("w", 16, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := packPanels(w, 16, 2)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("packed[%d] = %g, want %g", i, got[i], want[i])
		}
	}
	if got[1] != 10 || got[16] != 1 { // panel row 0 holds column p=0 of every j
		t.Fatalf("unexpected layout %v", got[:18])
	}
	if z, err := st.float32s("z", 0); err != nil || len(z) != 0 {
		t.Fatalf("empty tensor: %v, %v", z, err)
	}
}

func TestSafetensorsPackedHalf(t *testing.T) {
	// A 16×3 F16 matrix of distinct values: packedHalf keeps the bits in
	// the layout packed gives the float32 values.
	var data []byte
	for j := 0; j < 16; j++ {
		for p := 0; p < 3; p++ {
			data = binary.LittleEndian.AppendUint16(data, uint16(0x3c00+16*j+p)) // 1 + (16j+p)/1024
		}
	}
	file := safetensorsFile(`{"w":{"dtype":"F16","shape":[16,3],"data_offsets":[0,96]},"f":{"dtype":"F32","shape":[16,1],"data_offsets":[0,64]}}`, string(data))
	st, err := parseSafetensors(file)
	if err != nil {
		t.Fatal(err)
	}
	half, err := st.packedHalf("w", 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := st.packed("w", 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wide {
		if halfToFloat(half[i]) != wide[i] {
			t.Fatalf("packedHalf[%d] = %g, packed %g", i, halfToFloat(half[i]), wide[i])
		}
	}
	if half[1] != 0x3c00+16 || half[16] != 0x3c01 {
		t.Fatalf("unexpected layout %x", half[:18])
	}
	if _, err := st.packedHalf("f", 16, 1); err == nil {
		t.Fatal("packedHalf accepted an F32 tensor")
	}
	if _, err := st.packedHalf("w", 8, 6); err == nil {
		t.Fatal("packedHalf accepted the wrong shape")
	}
}
