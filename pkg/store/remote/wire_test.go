package remote

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func TestVectorRoundTripsBits(t *testing.T) {
	special := []uint32{
		0x00000000, 0x80000000, // ±0
		0x00000001, 0x807fffff, // denormals
		0x7f7fffff, 0xff7fffff, // ±max
		0x7f800000, 0xff800000, // ±Inf
		0x7fc00000, 0x7f800001, 0xffc01234, // NaNs with payloads
		math.Float32bits(0.1), math.Float32bits(-1.0 / 3),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]uint32, 10000)
	for i := range random {
		random[i] = rng.Uint32()
	}
	tests := map[string][]uint32{"empty": {}, "special": special, "random bits": random}
	for name, bits := range tests {
		t.Run(name, func(t *testing.T) {
			v := make(vector, len(bits))
			for i, b := range bits {
				v[i] = math.Float32frombits(b)
			}
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			var got vector
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("unmarshal %s: %v", data, err)
			}
			if !sameBits(got, v) {
				t.Fatalf("bits differ after round trip")
			}
		})
	}
}

// TestJSONArrayVectorsAreExact backs the hand-typed fallback: encoding/json
// writes the shortest decimal that parses back to the same float32.
func TestJSONArrayVectorsAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]float32, 0, 20000)
	for len(v) < cap(v) {
		f := math.Float32frombits(rng.Uint32())
		if !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			v = append(v, f)
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got vector
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !sameBits(got, v) {
		t.Fatalf("JSON number arrays do not round-trip float32 exactly")
	}
}

func TestVectorRejects(t *testing.T) {
	for _, in := range []string{`"abc"`, `"AAA="`, `{}`, `12`, `["x"]`} {
		var v vector
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("unmarshal %s: want an error, got %v", in, v)
		}
	}
	var v vector = vector{1}
	if err := json.Unmarshal([]byte(`null`), &v); err != nil || v != nil {
		t.Errorf("null: got %v, %v; want nil vector", v, err)
	}
}

// TestWireMemoryShadowsVector guards the embedding trick: the vector must go
// out as base64 and every other field as memory.Memory's JSON.
func TestWireMemoryShadowsVector(t *testing.T) {
	m := fullMemory("t", 1, 4)
	data, err := json.Marshal(toWire(m))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw["vector"]), `"`) {
		t.Fatalf("vector encoded as %s, want a base64 string", raw["vector"])
	}
	plain, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(plain, &want); err != nil {
		t.Fatal(err)
	}
	delete(raw, "vector")
	delete(want, "vector")
	if !reflect.DeepEqual(raw, want) {
		t.Fatalf("fields other than vector differ:\n got %s\nwant %s", data, plain)
	}
	var back wireMemory
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.memory(), m) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back.memory(), m)
	}
}

// TestFilterRoundTrips sets every field of store.Filter by reflection, so a
// field added later cannot be silently dropped on the wire.
func TestFilterRoundTrips(t *testing.T) {
	var f store.Filter
	v := reflect.ValueOf(&f).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		switch fv.Kind() {
		case reflect.Slice:
			s := reflect.MakeSlice(fv.Type(), 2, 2)
			switch fv.Type().Elem().Kind() {
			case reflect.Int32:
				s.Index(0).SetInt(int64(20000 + i))
				s.Index(1).SetInt(-1)
			default:
				s.Index(0).SetString("a-" + v.Type().Field(i).Name)
				s.Index(1).SetString("b")
			}
			fv.Set(s)
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Struct:
			if fv.Type() != reflect.TypeOf(time.Time{}) {
				t.Fatalf("field %s: unhandled type %s", v.Type().Field(i).Name, fv.Type())
			}
			fv.Set(reflect.ValueOf(time.Date(2024, 1, 2, 3, 4, 5, 6+i, time.UTC)))
		default:
			t.Fatalf("field %s: unhandled kind %s", v.Type().Field(i).Name, fv.Kind())
		}
	}
	data, err := json.Marshal(scrollRequest{Tenant: "t", Filter: f, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	var back scrollRequest
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Filter, f) {
		t.Fatalf("filter round trip:\n got %+v\nwant %+v", back.Filter, f)
	}
}

func TestScoreRoundTrips(t *testing.T) {
	for _, f := range []float64{0, -1, 1, 0.123456789012345678, math.NaN(), math.Inf(1), math.Inf(-1)} {
		data, err := json.Marshal(wireHit{Score: score(f)})
		if err != nil {
			t.Fatalf("marshal %v: %v", f, err)
		}
		var h wireHit
		if err := json.Unmarshal(data, &h); err != nil {
			t.Fatalf("unmarshal %s: %v", data, err)
		}
		got := float64(h.Score)
		if got != f && !(math.IsNaN(f) && math.IsNaN(got)) {
			t.Fatalf("score %v came back as %v", f, got)
		}
	}
}

// TestMemoryHasNoJSONMethods: wireMemory embeds memory.Memory, whose own
// MarshalJSON, if it ever had one, would be promoted and bypass the shadow.
func TestMemoryHasNoJSONMethods(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(memory.Memory{}), reflect.TypeOf(&memory.Memory{})} {
		for _, name := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText"} {
			if _, ok := typ.MethodByName(name); ok {
				t.Errorf("%s has %s; wireMemory must define its own", typ, name)
			}
		}
	}
}
