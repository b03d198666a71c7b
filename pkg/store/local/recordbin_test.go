package local

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// filledMemory sets every field of a memory.Memory but Vector to a value
// that is not its zero, by reflection, so that a field added later is
// filled too and must survive the binary encoding.
func filledMemory(t *testing.T, loc *time.Location) memory.Memory {
	t.Helper()
	var m memory.Memory
	v := reflect.ValueOf(&m).Elem()
	when := time.Date(2026, 3, 4, 5, 6, 7, 891011, loc)
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case name == "Vector" || name == "ChunkVectors": // encoded after the record
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(when.Add(time.Duration(i) * time.Hour)))
		case f.Type() == reflect.TypeFor[*time.Time]():
			at := when.Add(-time.Minute)
			f.Set(reflect.ValueOf(&at))
		case f.Kind() == reflect.String:
			f.SetString(name + " ✓ value")
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.ValueOf([]string{name + "1", "", name + "3"}))
		case f.Kind() == reflect.Float64:
			f.SetFloat(float64(i) + 0.125)
		case f.Kind() == reflect.Int || f.Kind() == reflect.Int64:
			f.SetInt(int64(-i * 1000))
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("field %s of kind %s: teach filledMemory and the binary encoding about it", name, f.Kind())
		}
	}
	return m
}

func TestBinaryMemoryCoversEveryField(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    memory.Memory
	}{
		{"utc", filledMemory(t, time.UTC)},
		{"fixed zone", filledMemory(t, time.FixedZone("x", -7*3600))},
		{"sparse", testMemory("a", 3, nil)},
		{"zero", memory.Memory{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := appendMemoryBinary(nil, &tc.m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeMemoryBinary(p)
			if err != nil {
				t.Fatal(err)
			}
			// The reference is what the JSON records always gave back.
			js, err := json.Marshal(&tc.m)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeMemoryJSON(js)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("binary round trip\n got %+v\nwant %+v (as JSON gives it back)", got, want)
			}
			// A record written before the lifecycle fields ends where they
			// begin: that prefix decodes, as the memory without them.
			legacy := tc.m
			legacy.SupersededBy, legacy.DerivedFrom, legacy.Epoch, legacy.Quarantine, legacy.ValidUntil = "", nil, 0, "", nil
			old, err := appendMemoryBinary(nil, &legacy)
			if err != nil {
				t.Fatal(err)
			}
			// A record written before Quarantine ends after the lifecycle
			// fields: that prefix decodes too, unquarantined.
			unq := tc.m
			unq.Quarantine, unq.ValidUntil = "", nil
			beforeQ, err := appendMemoryBinary(nil, &unq)
			if err != nil {
				t.Fatal(err)
			}
			// A record written before ValidUntil ends after Quarantine: it
			// decodes with valid time open (ValidTo migrates it on read).
			open := tc.m
			open.ValidUntil = nil
			beforeVU, err := appendMemoryBinary(nil, &open)
			if err != nil {
				t.Fatal(err)
			}
			for n := range len(p) {
				if n == len(old) && n < len(p) {
					got, err := decodeMemoryBinary(p[:n])
					if err != nil || got.SupersededBy != "" || got.DerivedFrom != nil || got.Epoch != 0 || got.Quarantine != "" {
						t.Fatalf("legacy prefix: %+v, %v", got, err)
					}
					continue
				}
				if tc.m.Quarantine != "" && n == len(beforeQ) {
					got, err := decodeMemoryBinary(p[:n])
					if err != nil || got.Quarantine != "" || got.Epoch != tc.m.Epoch {
						t.Fatalf("prefix before quarantine: %+v, %v", got, err)
					}
					continue
				}
				if tc.m.ValidUntil != nil && n == len(beforeVU) {
					got, err := decodeMemoryBinary(p[:n])
					if err != nil || got.ValidUntil != nil || got.Quarantine != tc.m.Quarantine {
						t.Fatalf("prefix before valid_until: %+v, %v", got, err)
					}
					continue
				}
				if _, err := decodeMemoryBinary(p[:n]); err == nil {
					t.Fatalf("prefix of %d of %d bytes decoded", n, len(p))
				}
			}
		})
	}
}

// encodeUpsertJSON writes an upsert payload the way the engine did before
// the binary encoding.
func encodeUpsertJSON(t *testing.T, mems []memory.Memory) []byte {
	t.Helper()
	p := []byte{opUpsertJSON}
	p = binary.AppendUvarint(p, uint64(len(mems)))
	for _, m := range mems {
		vec := m.Vector
		m.Vector = nil
		js, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		p = binary.AppendUvarint(p, uint64(len(js)))
		p = append(p, js...)
		p = binary.AppendUvarint(p, uint64(len(vec)))
		for _, f := range vec {
			p = binary.LittleEndian.AppendUint32(p, math.Float32bits(f))
		}
	}
	return p
}

// TestLegacyJSONSnapshotAndLogLoad reopens a store whose snapshot and log
// were written with JSON records, and checks that it then writes binary.
func TestLegacyJSONSnapshotAndLogLoad(t *testing.T) {
	dir := t.TempDir()
	var mems []memory.Memory
	for i := range 20 {
		v, _ := normalized(seededVector(uint64(i), 8))
		mems = append(mems, testMemory("a", i, v))
	}
	mems[3].InvalidAt = new(time.Time)
	*mems[3].InvalidAt = time.Date(2027, 1, 1, 0, 0, 0, 5, time.UTC)
	snap := []byte(snapMagic)
	snap = append(snap, sealFrame(append(newFrame(0), encodeUpsertJSON(t, mems[:12])...))...)
	snap = append(snap, sealFrame(encodeEnd(newFrame(0), 12))...)
	if err := os.WriteFile(snapPath(dir, 2), snap, 0o600); err != nil {
		t.Fatal(err)
	}
	wal := append([]byte(walMagic), sealFrame(append(newFrame(0), encodeUpsertJSON(t, mems[12:])...))...)
	if err := os.WriteFile(walPath(dir, 2), wal, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openT(t, dir)
	defer closeT(t, s)
	for _, want := range mems {
		got, err := s.Get(t.Context(), "a", want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !sameMemory(got, want) {
			t.Fatalf("memory %s\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
	if err := s.Upsert(t.Context(), mems[:1]); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(walPath(dir, 2))
	if err != nil {
		t.Fatal(err)
	}
	if tail := b[len(wal):]; len(tail) <= frameHeaderLen || tail[frameHeaderLen] != opUpsert || slices.Equal(tail, wal) {
		t.Fatal("a new upsert was not logged in the binary encoding")
	}
}
