package recall

import (
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestMoveEchoes: a turn below the fact taken from it, and a fact below
// its own turn, move behind the other results of the window, in their
// order; a fact that stands for more than the turn above it, a memory
// without sources, two memories of one kind and anything beyond the window
// stay where they are.
func TestMoveEchoes(t *testing.T) {
	turn := func(id string, src ...string) Result {
		return Result{Memory: memory.Memory{ID: id, Tags: []string{TranscriptTag}, SourceIDs: src}}
	}
	fact := func(id string, src ...string) Result {
		return Result{Memory: memory.Memory{ID: id, SourceIDs: src}}
	}
	out := []Result{
		fact("f1", "e1"),       // kept
		turn("t1", "e1"),       // echo of f1: moves
		turn("t2", "e2"),       // kept
		fact("f2", "e2"),       // echo of t2: moves
		turn("t3", "e3"),       // kept
		fact("f3", "e3", "e4"), // says more than t3: kept
		fact("f4"),             // no source: kept
		turn("t1b", "e1"),      // a second turn of e1: an echo of f1 too, moves
		fact("f5", "e1"),       // a second fact of e1: of one kind with f1, but t1 is not kept: kept
		turn("t9", "e9"),       // beyond the window
		fact("f9", "e9"),       // beyond the window: stays
	}
	moveEchoes(out, 9)
	var got []string
	for _, r := range out {
		got = append(got, r.Memory.ID)
	}
	want := []string{"f1", "t2", "t3", "f3", "f4", "f5", "t1", "f2", "t1b", "t9", "f9"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	// Fewer results than the window, nothing to move.
	short := []Result{turn("a", "e1"), turn("b", "e2")}
	moveEchoes(short, 20)
	if short[0].Memory.ID != "a" || short[1].Memory.ID != "b" {
		t.Fatalf("order %v %v, want unchanged", short[0].Memory.ID, short[1].Memory.ID)
	}
}
