package local

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestTornTail damages the end of the log the ways a crash or a bad disk
// does, and checks that the store opens, drops only the damaged frame, says
// so in the log and keeps taking writes that survive the next restart.
func TestTornTail(t *testing.T) {
	const batches = 6
	for _, tc := range []struct {
		name     string
		damage   func(t *testing.T, path string, size int64)
		lostLast bool // the last whole frame is damaged
		warns    bool
	}{
		{"garbage appended", func(t *testing.T, path string, _ int64) {
			appendBytes(t, path, []byte("\x13\x37not a frame at all, just bytes"))
		}, false, true},
		{"zeros appended", func(t *testing.T, path string, _ int64) {
			appendBytes(t, path, make([]byte, 4096))
		}, false, true},
		{"huge length appended", func(t *testing.T, path string, _ int64) {
			var h [frameHeaderLen + 4]byte
			binary.LittleEndian.PutUint32(h[:], 0xfffffff0)
			appendBytes(t, path, h[:])
		}, false, true},
		{"half a header appended", func(t *testing.T, path string, _ int64) {
			appendBytes(t, path, []byte{0x10, 0})
		}, false, true},
		{"last frame cut short", func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, size-7); err != nil {
				t.Fatal(err)
			}
		}, true, true},
		{"last frame bit flipped", func(t *testing.T, path string, size int64) {
			flipByte(t, path, size-20)
		}, true, true},
		{"intact", func(*testing.T, string, int64) {}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			var mems []memory.Memory
			for b := range batches {
				batch := []memory.Memory{testMemory("a", 2*b, seededVector(uint64(2*b), 8)), testMemory("a", 2*b+1, nil)}
				if err := s.Upsert(t.Context(), batch); err != nil {
					t.Fatal(err)
				}
				mems = append(mems, batch...)
			}
			path := s.wal.path
			closeT(t, s)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			tc.damage(t, path, st.Size())

			logs := &logCapture{}
			s, err = Open(dir, WithLogger(slog.New(logs)))
			if err != nil {
				t.Fatalf("open after damage: %v", err)
			}
			want := mems
			if tc.lostLast {
				want = mems[:len(mems)-2]
				for _, m := range mems[len(mems)-2:] {
					if _, err := s.Get(t.Context(), "a", m.ID); !errors.Is(err, store.ErrNotFound) {
						t.Errorf("memory of the damaged frame: got %v, want not found", err)
					}
				}
			}
			checkAll(t, s, "after recovery", want)
			warned := slices.ContainsFunc(logs.messages(), func(m string) bool { return strings.Contains(m, "torn") })
			if warned != tc.warns {
				t.Errorf("recovery logged %q; want a torn-tail warning: %v", logs.messages(), tc.warns)
			}
			if st2, err := os.Stat(path); err != nil || (!tc.lostLast && st2.Size() != st.Size()) {
				t.Errorf("log is %d bytes after recovery, want the %d it had before the damage (%v)", st2.Size(), st.Size(), err)
			}

			extra := testMemory("a", 100, seededVector(100, 8))
			if err := s.Upsert(t.Context(), []memory.Memory{extra}); err != nil {
				t.Fatalf("upsert after recovery: %v", err)
			}
			closeT(t, s)
			s = openT(t, dir)
			defer closeT(t, s)
			checkAll(t, s, "after a write and another restart", append(slices.Clone(want), extra))
		})
	}
}

func TestTornHeader(t *testing.T) {
	for _, header := range []string{"", "RCL", "RCLWAL0", "\x00\x00\x00\x00\x00\x00\x00\x00"} {
		t.Run("header "+strings.ToValidUTF8(header, "?"), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(walPath(dir, 1), []byte(header), 0o644); err != nil {
				t.Fatal(err)
			}
			s := openT(t, dir)
			m := testMemory("a", 1, seededVector(1, 8))
			if err := s.Upsert(t.Context(), []memory.Memory{m}); err != nil {
				t.Fatalf("upsert: %v", err)
			}
			closeT(t, s)
			s = openT(t, dir)
			defer closeT(t, s)
			checkAll(t, s, "after restart", []memory.Memory{m})
		})
	}
}

// A foreign file or a damaged snapshot is not a crash artefact: refusing to
// start beats silently dropping acknowledged data.
func TestRefusesForeignOrCorruptFiles(t *testing.T) {
	t.Run("foreign wal", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(walPath(dir, 1), []byte("#!/bin/sh\necho hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if s, err := Open(dir, WithLogger(discardLogger())); err == nil {
			s.Close()
			t.Fatal("open succeeded over a foreign log file")
		}
	})
	t.Run("corrupt snapshot", func(t *testing.T) {
		dir := t.TempDir()
		s := openT(t, dir, WithConfig(Config{CompactMinBytes: 1, CompactRatio: 0.01}))
		if err := s.Upsert(t.Context(), []memory.Memory{testMemory("a", 1, seededVector(1, 8))}); err != nil {
			t.Fatal(err)
		}
		// The upsert started a compaction in the background; Close may
		// overtake it before it begins, so wait for its snapshot first.
		var df dirFiles
		deadline := time.Now().Add(10 * time.Second)
		for {
			var err error
			df, err = listDir(dir)
			if err == nil && len(df.snaps) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("want one snapshot, have %v (%v)", df.snaps, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		closeT(t, s)
		path := snapPath(dir, df.snaps[0])
		st, _ := os.Stat(path)
		flipByte(t, path, st.Size()/2)
		if s, err := Open(dir, WithLogger(discardLogger())); err == nil {
			s.Close()
			t.Fatal("open succeeded over a corrupt snapshot")
		} else if !strings.Contains(err.Error(), path) {
			t.Fatalf("error %q does not name the snapshot", err)
		}
	})
}

func TestSecondOpenRefused(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	if s2, err := Open(dir, WithLogger(discardLogger())); err == nil {
		s2.Close()
		t.Fatal("a second open of a directory in use succeeded")
	}
	closeT(t, s)
	closeT(t, openT(t, dir))
}

// checkAll checks that s holds exactly mems (tenant "a"), field for field.
func checkAll(t *testing.T, s *Store, stage string, mems []memory.Memory) {
	t.Helper()
	n, err := s.Count(t.Context(), "a", store.Filter{IncludeArchived: true, IncludeSuperseded: true})
	if err != nil || n != len(mems) {
		t.Errorf("%s: count = %d (%v), want %d", stage, n, err, len(mems))
	}
	for _, m := range mems {
		got, err := s.Get(t.Context(), "a", m.ID)
		if err != nil {
			t.Errorf("%s: get %s: %v", stage, m.ID, err)
			continue
		}
		want := m
		want.Vector, _ = normalized(m.Vector)
		if !sameMemory(got, want) {
			t.Errorf("%s: get %s = %+v, want %+v", stage, m.ID, got, want)
		}
	}
}

// sameMemory compares every field exactly, times as instants.
func sameMemory(a, b memory.Memory) bool {
	return reflect.DeepEqual(utcTimes(a), utcTimes(b))
}

func utcTimes(m memory.Memory) memory.Memory {
	m.CreatedAt, m.ModifiedAt = m.CreatedAt.UTC(), m.ModifiedAt.UTC()
	m.LastAccessed, m.ValidFrom = m.LastAccessed.UTC(), m.ValidFrom.UTC()
	if m.InvalidAt != nil {
		v := m.InvalidAt.UTC()
		m.InvalidAt = &v
	}
	return m
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
