package local

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

const payloadDim = 64

// payloadFixture fills tenant "a" with memories, a few without a vector,
// and returns them as stored.
func payloadFixture(t *testing.T, s *Store, n int) []memory.Memory {
	t.Helper()
	var mems []memory.Memory
	for i := range n {
		var v []float32
		if i%5 != 4 {
			v = seededVector(uint64(i), payloadDim)
		}
		mems = append(mems, testMemory("a", i, v))
	}
	if err := s.Upsert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	return mems
}

// bookkeeping changes every field an epoch changes, keeping the text.
func bookkeeping(m memory.Memory, round int) memory.Memory {
	m.Vector = nil // the stored one stays
	m.AccessCount = round*10 + 1
	m.Importance = 0.1 + float64(round%8)/10
	m.Layer = []memory.Layer{memory.LayerWorking, memory.LayerCore, memory.LayerBuffer}[round%3]
	m.LastAccessed = m.CreatedAt.Add(time.Duration(round) * time.Hour)
	m.ModifiedAt = m.LastAccessed
	m.Epoch = int64(round + 1)
	m.Archived = round%4 == 3
	if round%3 == 2 {
		inv := m.LastAccessed
		m.InvalidAt, m.SupersededBy, m.DerivedFrom = &inv, "other", []string{"x", "y"}
	} else {
		m.InvalidAt, m.SupersededBy, m.DerivedFrom = nil, "", nil
	}
	return m
}

// withVectors returns the memories updated by payload as the store holds
// them: the payload with the vectors of orig.
func withVectors(payload, orig []memory.Memory) []memory.Memory {
	out := make([]memory.Memory, len(payload))
	for i := range payload {
		out[i] = payload[i]
		out[i].Vector = orig[i].Vector
	}
	return out
}

// logKinds lists the payload kinds of a log's frames.
func logKinds(t *testing.T, path string) (kinds []byte, lens []int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(magicLen, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	fr := newFrameReader(f, magicLen, st.Size())
	for {
		p, err := fr.next()
		if errors.Is(err, io.EOF) {
			return kinds, lens
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		kinds, lens = append(kinds, p[0]), append(lens, len(p))
	}
}

func TestPayloadRecordRoundTrip(t *testing.T) {
	inv := time.Date(2030, 1, 1, 0, 0, 0, 1, time.FixedZone("x", 3600))
	full := testMemory("a", 1, []float32{0.25, -0.5})
	full.Scope, full.SourceIDs, full.InvalidAt, full.Archived = []string{"*.go"}, []string{"m1"}, &inv, true
	full.SupersededBy, full.DerivedFrom, full.Epoch = "m2", []string{"m3"}, 9
	mems := []memory.Memory{full, testMemory("b", 2, nil)}
	p, sizes, err := encodePayload(nil, mems)
	if err != nil {
		t.Fatal(err)
	}
	o, err := decodeOp(p)
	if err != nil {
		t.Fatal(err)
	}
	if o.kind != opPayload || len(o.mems) != 2 || !slices.Equal(o.sizes, sizes) {
		t.Fatalf("decoded kind %d, %d memories, sizes %v (encoded %v)", o.kind, len(o.mems), o.sizes, sizes)
	}
	for i := range mems {
		want := mems[i]
		want.Vector = nil
		if !sameMemory(o.mems[i], want) {
			t.Errorf("memory %d: got %+v, want %+v", i, o.mems[i], want)
		}
	}
	// A payload record is an upsert record less its vector part.
	up, upSizes, err := encodeUpsert(nil, mems)
	if err != nil {
		t.Fatal(err)
	}
	if len(up)-len(p) != vectorPartLen(2)+vectorPartLen(0) || upSizes[0] != sizes[0]+vectorPartLen(2) || upSizes[1] != sizes[1]+vectorPartLen(0) {
		t.Fatalf("upsert record sizes %v (%d bytes), payload %v (%d bytes): not apart by the vector parts", upSizes, len(up), sizes, len(p))
	}
}

// TestUpdatePayloadLogsNoVectors checks what UpdatePayload writes and
// keeps: payload frames without vectors, the stored vectors, text index
// and int8 copy untouched, filters following the new payload; and that a
// replay of the log and a snapshot rebuild exactly that, live-data
// accounting included.
func TestUpdatePayloadLogsNoVectors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ApproxMinRows = 8
	dir := t.TempDir()
	s := openT(t, dir, WithConfig(cfg))
	orig := payloadFixture(t, s, 40)
	textBefore := searchAllText(t, s)

	var cur []memory.Memory
	for round := range 3 {
		cur = cur[:0]
		for _, m := range orig {
			cur = append(cur, bookkeeping(m, round))
		}
		// A stale vector on the caller's copy is ignored, as is an id the
		// tenant does not hold.
		cur[0].Vector = seededVector(999, payloadDim)
		if err := s.UpdatePayload(t.Context(), "a", append(slices.Clone(cur), testMemory("a", 1000, nil))); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		cur[0].Vector = nil
	}
	want := withVectors(cur, orig)
	checkAll(t, s, "after payload updates", want)
	checkQuant(t, s.partition("a"))
	if _, err := s.Get(t.Context(), "a", testMemory("a", 1000, nil).ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a payload update of an id not held created it (get: %v)", err)
	}
	// Round 2 superseded every memory: the default filter sees none.
	if n, err := s.Count(t.Context(), "a", store.Filter{}); err != nil || n != 0 {
		t.Fatalf("count of current memories after superseding all = %d (%v), want 0", n, err)
	}
	if got := searchAllText(t, s); !slices.Equal(hitIDsOf(got), hitIDsOf(textBefore)) {
		t.Fatalf("text search after payload updates %v, want %v", hitIDsOf(got), hitIDsOf(textBefore))
	}
	hits, err := s.Search(t.Context(), store.Query{Tenant: "a", Vector: orig[1].Vector, K: 1, Filter: store.Filter{IncludeSuperseded: true}})
	if err != nil || len(hits) != 1 || hits[0].Memory.ID != orig[1].ID {
		t.Fatalf("search by a kept vector: %v %v, want %s", hitIDsOf(hits), err, orig[1].ID)
	}

	kinds, lens := logKinds(t, s.wal.path)
	if !slices.Equal(kinds, []byte{opUpsert, opPayload, opPayload, opPayload}) {
		t.Fatalf("log frames of kinds %v, want one upsert and three payload updates", kinds)
	}
	// The frame holds the 40 memories held, without their vectors.
	var round0 []memory.Memory
	for _, m := range orig {
		round0 = append(round0, bookkeeping(m, 0))
	}
	p, _, err := encodePayload(nil, round0)
	if err != nil {
		t.Fatal(err)
	}
	if lens[1] != len(p) {
		t.Fatalf("payload frame of %d bytes, want the %d of the held memories without vectors (the upsert frame: %d)", lens[1], len(p), lens[0])
	}
	live := s.Stats().LiveBytes
	closeT(t, s)

	s = openT(t, dir, WithConfig(cfg))
	checkAll(t, s, "after a replay", want)
	checkQuant(t, s.partition("a"))
	if got := s.Stats().LiveBytes; got != live {
		t.Errorf("live bytes %d after a replay, %d before", got, live)
	}
	if got := searchAllText(t, s); !slices.Equal(hitIDsOf(got), hitIDsOf(textBefore)) {
		t.Fatalf("text search after a replay %v, want %v", hitIDsOf(got), hitIDsOf(textBefore))
	}
	// A snapshot holds whole records; the accounting said what they take.
	s.compact()
	closeT(t, s)
	if df, err := listDir(dir); err != nil || len(df.snaps) != 1 {
		t.Fatalf("snapshots %v (%v), want one", df.snaps, err)
	}
	s = openT(t, dir, WithConfig(cfg))
	defer closeT(t, s)
	checkAll(t, s, "after a compaction", want)
	if got := s.Stats().LiveBytes; got != live {
		t.Errorf("live bytes %d read from the snapshot, %d counted before", got, live)
	}
}

// TestUpdatePayloadRefusesTextChange checks the contract the payload
// records rely on: a batch with a changed text writes nothing.
func TestUpdatePayloadRefusesTextChange(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	orig := payloadFixture(t, s, 6)
	for _, change := range []func(*memory.Memory){
		func(m *memory.Memory) { m.Content += " changed" },
		func(m *memory.Memory) { m.Key = "a-key" },
		func(m *memory.Memory) { m.Tags = append(m.Tags, "new") },
	} {
		a, b := bookkeeping(orig[0], 1), bookkeeping(orig[3], 1)
		change(&b)
		if err := s.UpdatePayload(t.Context(), "a", []memory.Memory{a, b}); !errors.Is(err, memory.ErrInvalid) {
			t.Fatalf("changed text: err %v, want memory.ErrInvalid", err)
		}
	}
	closeT(t, s)
	if kinds, _ := logKinds(t, walPath(dir, 1)); !slices.Equal(kinds, []byte{opUpsert}) {
		t.Fatalf("refused batches logged frames: %v", kinds)
	}
	s = openT(t, dir)
	defer closeT(t, s)
	checkAll(t, s, "after refused batches", orig)
}

// TestUpsertSameVectorKeepsQuant rewrites memories with the vectors they
// have (the slab and int8 copy are left alone) and with new ones.
func TestUpsertSameVectorKeepsQuant(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ApproxMinRows = 8
	dir := t.TempDir()
	s := openT(t, dir, WithConfig(cfg))
	orig := payloadFixture(t, s, 30)
	var want []memory.Memory
	for i, m := range orig {
		m.Tags = append(slices.Clone(m.Tags), "retagged")
		switch i % 3 {
		case 1:
			m.Vector = seededVector(uint64(500+i), payloadDim)
		case 2:
			m.Vector = nil
		}
		want = append(want, m)
	}
	if err := s.Upsert(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	checkAll(t, s, "after rewrites", want)
	checkQuant(t, s.partition("a"))
	withVec := 0
	for _, m := range want {
		if len(m.Vector) > 0 {
			withVec++
		}
	}
	if p := s.partition("a"); p.nvec != withVec {
		t.Fatalf("%d rows with a vector, want %d", p.nvec, withVec)
	}
	closeT(t, s)
	s = openT(t, dir, WithConfig(cfg))
	defer closeT(t, s)
	checkAll(t, s, "after a restart", want)
	checkQuant(t, s.partition("a"))
}

// TestPayloadTornTail damages the last frame, a payload update, as a crash
// does: the update is lost whole, the rest stays and writes go on.
func TestPayloadTornTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		// damage hits the last frame, from start to end.
		damage func(t *testing.T, path string, start, end int64)
	}{
		{"cut short", func(t *testing.T, path string, _, end int64) {
			if err := os.Truncate(path, end-5); err != nil {
				t.Fatal(err)
			}
		}},
		{"bit flipped", func(t *testing.T, path string, _, end int64) { flipByte(t, path, end-30) }},
		{"only its header written", func(t *testing.T, path string, start, _ int64) {
			if err := os.Truncate(path, start+frameHeaderLen); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			orig := payloadFixture(t, s, 10)
			first := make([]memory.Memory, len(orig))
			for i, m := range orig {
				first[i] = bookkeeping(m, 0)
			}
			if err := s.UpdatePayload(t.Context(), "a", first); err != nil {
				t.Fatal(err)
			}
			path := s.wal.path
			start := s.wal.size.Load()
			second := make([]memory.Memory, len(orig))
			for i, m := range orig {
				second[i] = bookkeeping(m, 1)
			}
			if err := s.UpdatePayload(t.Context(), "a", second[:4]); err != nil {
				t.Fatal(err)
			}
			end := s.wal.size.Load()
			closeT(t, s)
			tc.damage(t, path, start, end)

			logs := &logCapture{}
			s, err := Open(dir, WithLogger(slog.New(logs)))
			if err != nil {
				t.Fatalf("open after damage: %v", err)
			}
			want := withVectors(first, orig)
			checkAll(t, s, "after recovery", want)
			if !slices.ContainsFunc(logs.messages(), func(m string) bool { return strings.Contains(m, "torn") }) {
				t.Errorf("recovery logged %q, want a torn-tail warning", logs.messages())
			}
			if st, err := os.Stat(path); err != nil || st.Size() != start {
				t.Errorf("log cut to %v bytes (%v), want %d: the last whole frame's end", st.Size(), err, start)
			}
			if err := s.UpdatePayload(t.Context(), "a", second[4:]); err != nil {
				t.Fatalf("update payload after recovery: %v", err)
			}
			closeT(t, s)
			s = openT(t, dir)
			defer closeT(t, s)
			want = append(want[:4], withVectors(second[4:], orig[4:])...)
			checkAll(t, s, "after a write and another restart", want)
		})
	}
}

// TestPayloadCompactionCrashPoints runs compactions set off by payload
// updates and checks a copy of the directory at every step, as
// TestCompactionCrashPoints does for upserts.
func TestPayloadCompactionCrashPoints(t *testing.T) {
	dir := t.TempDir()
	var copies []string
	var steps []string
	hook := func(step string) {
		dst := t.TempDir()
		copyDir(t, dir, dst)
		steps, copies = append(steps, step), append(copies, dst)
	}
	s := openT(t, dir, WithConfig(Config{CompactMinBytes: 8 << 10, CompactRatio: 1.5}), withCompactHook(hook))
	orig := payloadFixture(t, s, 20)
	var cur []memory.Memory
	for round := 0; len(steps) == 0; round++ {
		if round > 1000 {
			t.Fatal("no compaction after 1000 payload updates")
		}
		cur = cur[:0]
		for _, m := range orig {
			cur = append(cur, bookkeeping(m, round))
		}
		if err := s.UpdatePayload(t.Context(), "a", cur); err != nil {
			t.Fatal(err)
		}
		// No write may land while a compaction copies the directory.
		s.compactWG.Wait()
	}
	want := withVectors(cur, orig)
	// Payload records land in the new log, after the snapshot.
	last := make([]memory.Memory, len(orig))
	for i, m := range orig {
		last[i] = bookkeeping(m, 5000)
	}
	if err := s.UpdatePayload(t.Context(), "a", last[:7]); err != nil {
		t.Fatal(err)
	}
	closeT(t, s)
	if want := []string{"rotated", "snapshot-written", "snapshot-renamed", "cleaned"}; !slices.Equal(steps, want) {
		t.Fatalf("compaction steps %v, want %v", steps, want)
	}
	for i, step := range steps {
		t.Run(step, func(t *testing.T) {
			s := openT(t, copies[i])
			defer closeT(t, s)
			checkAll(t, s, "crash at "+step, want)
		})
	}
	s = openT(t, dir)
	defer closeT(t, s)
	checkAll(t, s, "after the compaction and more updates", append(withVectors(last[:7], orig[:7]), want[7:]...))
}

func searchAllText(t *testing.T, s *Store) []store.Hit {
	t.Helper()
	hits, err := s.SearchText(t.Context(), store.TextQuery{Tenant: "a", Text: "local memory", K: 100,
		Filter: store.Filter{IncludeArchived: true, IncludeSuperseded: true}})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func hitIDsOf(hits []store.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Memory.ID
	}
	return ids
}

// TestUpdatePayloadMovesFilterColumns changes the values filters test
// through payload updates: counts by them follow, before and after a
// restart.
func TestUpdatePayloadMovesFilterColumns(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	orig := payloadFixture(t, s, 20)
	var upd []memory.Memory
	for i, m := range orig {
		if i%2 == 0 {
			m.Vector = nil
			m.Namespace, m.Layer, m.Subject = "moved", memory.LayerCore, "someone"
			upd = append(upd, m)
		}
	}
	if err := s.UpdatePayload(t.Context(), "a", upd); err != nil {
		t.Fatal(err)
	}
	check := func(stage string) {
		t.Helper()
		for _, tc := range []struct {
			f    store.Filter
			want int
		}{
			{store.Filter{Namespaces: []string{"moved"}}, 10},
			{store.Filter{Namespaces: []string{memory.DefaultNamespace}}, 10},
			{store.Filter{Layers: []memory.Layer{memory.LayerCore}}, 10},
			{store.Filter{Layers: []memory.Layer{memory.LayerBuffer}}, 10},
			{store.Filter{Subjects: []string{"someone"}, Namespaces: []string{"moved"}}, 10},
		} {
			if n, err := s.Count(t.Context(), "a", tc.f); err != nil || n != tc.want {
				t.Errorf("%s: count by %+v = %d (%v), want %d", stage, tc.f, n, err, tc.want)
			}
		}
	}
	check("after payload updates")
	closeT(t, s)
	s = openT(t, dir)
	defer closeT(t, s)
	check("after a restart")
}
