package embedder

import (
	"math"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// keyed is a fact whose id derives from its key, as the extractor makes
// style observations and the personality directive.
func keyed(key, content, source string, typ memory.Type) memory.FactMessage {
	f := fact(content, source)
	f.Memory.ID = memory.DeterministicID("acme", "default", "alice", "key", key)
	f.Memory.Key, f.Memory.Type, f.Memory.Confidence = key, typ, 0.6
	return f
}

func TestStyleObservationReinforced(t *testing.T) {
	f := newFixture(t)
	for i, m := range []memory.FactMessage{
		keyed("style/terse", "The user writes short, terse messages.", "acme:e1", memory.TypeStyle),
		keyed("style/terse", "The user is terse.", "acme:e2", memory.TypeStyle),
		keyed("style/terse", "The user is terse.", "acme:e2", memory.TypeStyle), // redelivered
		keyed("style/terse", "Very short replies.", "acme:e3", memory.TypeStyle),
	} {
		if err := f.handle(t, m); err != nil {
			t.Fatalf("fact %d: %v", i, err)
		}
	}
	mems := f.all(t)
	want := 0.6 + 0.4*0.2
	want += (1 - want) * 0.2
	if len(mems) != 1 || mems[0].RepetitionCount != 3 || mems[0].Content != "The user writes short, terse messages." ||
		math.Abs(mems[0].Confidence-want) > 1e-9 {
		t.Fatalf("stored %+v, want count 3, the first wording, confidence %.4f", mems, want)
	}
}

func TestDirectiveReplaced(t *testing.T) {
	f := newFixture(t)
	v1 := keyed(directiveKey, "You keep replies short.", "directive:acme:a", memory.TypeStyle)
	v1.Memory.Layer = memory.LayerCore
	v2 := keyed(directiveKey, "You keep replies short and skip pleasantries.", "directive:acme:b", memory.TypeStyle)
	v2.Memory.Layer = memory.LayerCore
	for _, m := range []memory.FactMessage{v1, v2, v2} {
		if err := f.handle(t, m); err != nil {
			t.Fatal(err)
		}
	}
	mems := f.all(t)
	if len(mems) != 1 || mems[0].Content != v2.Memory.Content || mems[0].RepetitionCount != 2 || mems[0].Layer != memory.LayerCore ||
		mems[0].Confidence != 0.6 || len(mems[0].Vector) != 384 {
		t.Fatalf("stored %+v", mems)
	}
}
