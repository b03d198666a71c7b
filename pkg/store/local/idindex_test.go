package local

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestIDIndexAgainstMap adds, moves and removes ids at random, rows kept
// dense as a partition keeps them, and compares the index with a map.
func TestIDIndexAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := newIDIndex()
	var rows []string // row → id
	want := map[string]int{}
	idOf := func(row int) string { return rows[row] }
	for step := range 20_000 {
		id := strconv.Itoa(r.IntN(700))
		if row, ok := want[id]; ok {
			// Swap-remove, as partition.remove does.
			x.remove(id, idOf)
			last := len(rows) - 1
			if row != last {
				rows[row] = rows[last]
				x.setRow(rows[row], row, idOf)
				want[rows[row]] = row
			}
			rows = rows[:last]
			delete(want, id)
		} else {
			rows = append(rows, id)
			x.add(id, len(rows)-1)
			want[id] = len(rows) - 1
		}
		if x.len() != len(want) {
			t.Fatalf("step %d: index holds %d ids, map %d", step, x.len(), len(want))
		}
		if step%101 != 0 {
			continue
		}
		for i := range 700 {
			id := strconv.Itoa(i)
			row, ok := x.get(id, idOf)
			if wrow, wok := want[id]; ok != wok || ok && row != wrow {
				t.Fatalf("step %d: %s at row %d (%v), want %d (%v)", step, id, row, ok, wrow, wok)
			}
		}
		if n := len(x.slots); n > minIDSlots && 8*x.n < n || 4*x.n > 3*n {
			t.Fatalf("step %d: %d ids in %d slots", step, x.n, n)
		}
	}
}
