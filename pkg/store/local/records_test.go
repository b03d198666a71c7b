package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestPartitionRecordRoundTrip checks that a memory with every field set
// comes back from a partition as the log gives it back (see
// TestBinaryMemoryCoversEveryField), and that what is handed out is the
// caller's to change.
func TestPartitionRecordRoundTrip(t *testing.T) {
	for _, loc := range []*time.Location{time.UTC, time.FixedZone("x", -7*3600)} {
		m := filledMemory(t, loc)
		m.Vector = []float32{0.6, 0.8}
		p := newPartition(0, 0)
		mustUpsert(t, p, m, 1, lexical.MemoryVector(m))
		got, err := p.memoryAt(rowOfT(t, p, m.ID))
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodeMemoryJSON(js)
		if err != nil {
			t.Fatal(err)
		}
		want.Vector = m.Vector
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, want)
		}
		got.Tags[0], got.Scope[0], got.SourceIDs[0], got.DerivedFrom[0] = "changed", "changed", "changed", "changed"
		got.Vector[0] = 9
		*got.InvalidAt = time.Time{}
		again, err := p.memoryAt(rowOfT(t, p, m.ID))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("changing a returned memory reached the partition: %+v", again)
		}
	}
}

// TestRecViewMatchesDecode checks the fields read from an encoded record
// against the decoded memory.
func TestRecViewMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	for i := range 500 {
		m := testMemory("t", i, nil)
		m.Key = pick("", "k", "key with spaces")
		m.Content = pick("", "c", "some longer content ✓")
		m.Tags = nil
		for range r.IntN(4) {
			m.Tags = append(m.Tags, pick("", "x", "y", "z"))
		}
		if r.IntN(3) == 0 {
			m.SupersededBy, m.Quarantine, m.Epoch = "s", pick("", "q"), int64(r.IntN(5))
		}
		rec, err := appendMemoryBinary(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		if string(recID(rec)) != m.ID || string(recKey(rec)) != m.Key {
			t.Fatalf("memory %d: view reads id %q key %q", i, recID(rec), recKey(rec))
		}
		for _, want := range [][]string{{"x"}, {"y", "q"}, {""}, {"w"}} {
			if got := recHasAnyTag(rec, want); got != hasAnyTag(m.Tags, want) {
				t.Fatalf("memory %d tags %q: has any of %q = %v", i, m.Tags, want, got)
			}
		}
		other := m
		switch r.IntN(4) {
		case 0:
			other.Key += "!"
		case 1:
			other.Content = pick("", "c", "other")
		case 2:
			other.Tags = append(slices.Clone(other.Tags), "x")
		}
		if got := recSameText(rec, &other); got != lexical.SameText(m, other) {
			t.Fatalf("memory %d: same text as %+v = %v", i, other, got)
		}
	}
}

// TestSnapBatchMatchesUpsert checks that a snapshot of encoded records is
// byte for byte the upsert batch of their memories.
func TestSnapBatchMatchesUpsert(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		var mems []memory.Memory
		var recs []snapRec
		for i := range 5 {
			m := testMemory("t", i, nil)
			if i != 2 {
				m.Vector = []float32{float32(i), 1, -2}
			}
			if chunked && i == 3 {
				m.ChunkVectors = [][]float32{{1, 2, 3}, {4, 5, 6}}
			}
			mems = append(mems, m)
			rec, err := appendMemoryBinary(nil, &m)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, snapRec{rec: rec, vec: m.Vector, chunks: m.ChunkVectors})
		}
		want, _, err := encodeUpsert(nil, mems)
		if err != nil {
			t.Fatal(err)
		}
		if got := encodeSnapBatch(nil, recs); !bytes.Equal(got, want) {
			t.Fatalf("chunked %v: snapshot batch differs from the upsert batch", chunked)
		}
	}
}

// TestPartitionAgainstModel upserts, patches and deletes memories at
// random and compares the partition with a map after each step: every id
// maps to a row holding that memory, and every row's id maps back.
func TestPartitionAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := newPartition(0, 0)
	model := map[string]memory.Memory{}
	var ids []string
	for step := range 4000 {
		id := "m-" + strconv.Itoa(r.IntN(300))
		switch op := r.IntN(10); {
		case op < 5:
			m := testMemory("t", step, nil)
			m.ID = id
			m.Content = strings.Repeat("word ", r.IntN(40))
			m.Tags = []string{"t" + strconv.Itoa(r.IntN(3))}
			if r.IntN(2) == 0 {
				m.Vector = []float32{0.6, 0.8}
			}
			mustUpsert(t, p, m, 1, lexical.MemoryVector(m))
			if _, ok := model[id]; !ok {
				ids = append(ids, id)
			}
			m.Vector = slices.Clone(m.Vector)
			model[id] = m
		case op < 7:
			old, ok := model[id]
			if !ok {
				continue
			}
			m := old
			m.AccessCount += r.IntN(3) // mostly the same length: rewritten in place
			if r.IntN(3) == 0 {
				m.Evidence = strings.Repeat("e", r.IntN(100))
			}
			if _, err := p.setPayload(rowOfT(t, p, id), m, 1); err != nil {
				t.Fatal(err)
			}
			model[id] = m
		default:
			if _, ok := model[id]; !ok {
				continue
			}
			mustRemove(t, p, id)
			delete(model, id)
			ids = slices.DeleteFunc(ids, func(x string) bool { return x == id })
		}
		if step%50 != 0 {
			continue
		}
		if p.ids.len() != len(model) || len(p.recs) != len(model) {
			t.Fatalf("step %d: %d ids, %d rows, model holds %d", step, p.ids.len(), len(p.recs), len(model))
		}
		for row := range p.recs {
			if got, ok := p.row(p.rowID(row)); !ok || got != row {
				t.Fatalf("step %d: row %d (%s) maps to row %d (%v)", step, row, p.rowID(row), got, ok)
			}
		}
		for _, id := range ids {
			got, err := p.memoryAt(rowOfT(t, p, id))
			if err != nil {
				t.Fatal(err)
			}
			if want := model[id]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("step %d: %s\n got %+v\nwant %+v", step, id, got, want)
			}
		}
	}
}
