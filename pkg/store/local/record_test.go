package local

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestRecordRoundTrip(t *testing.T) {
	inv := time.Date(2030, 1, 1, 0, 0, 0, 1, time.FixedZone("x", 3600))
	full := testMemory("a", 1, []float32{0.25, -0.5, 1e-30, 3.4e38})
	full.Scope, full.SourceIDs, full.InvalidAt, full.Archived = []string{"*.go"}, []string{"m1"}, &inv, true
	mems := []memory.Memory{full, testMemory("b", 2, nil)}
	p, sizes, err := encodeUpsert(nil, mems)
	if err != nil {
		t.Fatal(err)
	}
	o, err := decodeOp(p)
	if err != nil {
		t.Fatal(err)
	}
	if o.kind != opUpsert || len(o.mems) != 2 || !slices.Equal(o.sizes, sizes) {
		t.Fatalf("decoded kind %d, %d memories, sizes %v (encoded %v)", o.kind, len(o.mems), o.sizes, sizes)
	}
	for i := range mems {
		if !sameMemory(o.mems[i], mems[i]) {
			t.Errorf("memory %d: got %+v, want %+v", i, o.mems[i], mems[i])
		}
	}
	d, err := decodeOp(encodeDelete(nil, "ten", []string{"x", "", "z"}))
	if err != nil || d.kind != opDelete || d.tenant != "ten" || !slices.Equal(d.ids, []string{"x", "", "z"}) {
		t.Fatalf("delete round trip: %+v %v", d, err)
	}
}

// TestDecodeNeverPanics feeds every prefix and many corruptions of valid
// payloads to the decoder: it must return errors, not panic or allocate
// without bound.
func TestDecodeNeverPanics(t *testing.T) {
	up, _, err := encodeUpsert(nil, []memory.Memory{testMemory("a", 1, []float32{1, 2, 3})})
	if err != nil {
		t.Fatal(err)
	}
	pl, _, err := encodePayload(nil, []memory.Memory{testMemory("a", 1, nil), testMemory("a", 2, nil)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]byte{up, pl, encodeDelete(nil, "t", []string{"a", "b"}), encodeEnd(nil, 7)} {
		for n := range len(p) {
			if _, err := decodeOp(p[:n]); err == nil {
				t.Errorf("prefix of %d of %d bytes decoded", n, len(p))
			}
		}
		for i := range p {
			for _, x := range []byte{0xff, 0x80, 0x01} {
				c := slices.Clone(p)
				c[i] ^= x
				decodeOp(c) // must return, whatever it says
			}
		}
	}
}

func TestDecodeHugeDim(t *testing.T) {
	p := []byte{opUpsert, 1, 2, '{', '}'}
	p = binary.AppendUvarint(p, 1<<62) // times 4 overflows to 0
	if _, err := decodeOp(p); err == nil {
		t.Fatal("a vector length beyond the payload decoded")
	}
}

func FuzzDecodeOp(f *testing.F) {
	up, _, _ := encodeUpsert(nil, []memory.Memory{testMemory("a", 1, []float32{1, 2})})
	f.Add(up)
	pl, _, _ := encodePayload(nil, []memory.Memory{testMemory("a", 1, nil)})
	f.Add(pl)
	f.Add(encodeDelete(nil, "t", []string{"a"}))
	f.Add(encodeEnd(nil, 1))
	f.Fuzz(func(t *testing.T, p []byte) {
		decodeOp(p)
	})
}
