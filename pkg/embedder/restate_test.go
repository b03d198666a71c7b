package embedder

import (
	"fmt"
	"math"
	"testing"
)

// Each restatement from another event raises importance by a bounded
// step (issue 19: restating never raised it); a redelivered one counts
// nothing; restatements alone never lift it past the ceiling.
func TestRestatementRaisesImportanceBounded(t *testing.T) {
	f := newFixture(t)
	for i, want := range []float64{0.7, 0.75, 0.8, 0.8, 0.85, 0.9, 0.9, 0.9} {
		src := fmt.Sprintf("acme:e%d", i)
		if i == 3 {
			src = "acme:e2" // a redelivery of the third statement
		}
		if err := f.handle(t, fact("User prefers tabs over spaces.", src)); err != nil {
			t.Fatal(err)
		}
		mems := f.all(t)
		if len(mems) != 1 || math.Abs(mems[0].Importance-want) > 1e-9 {
			t.Fatalf("statement %d: %d memories, importance %v, want %v", i+1, len(mems), mems[0].Importance, want)
		}
	}
}
