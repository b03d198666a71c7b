package consolidate

import (
	"math"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func mem(id string, layer memory.Layer, kind memory.Kind, imp float64) memory.Memory {
	return memory.Memory{ID: id, Tenant: "t", Namespace: "default", Content: id, Domain: "general",
		Type: memory.TypeFact, Kind: kind, Layer: layer, Importance: imp}
}

func find(ms []memory.Memory, id string) (memory.Memory, bool) {
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return memory.Memory{}, false
}

func TestPlanEpochDecayByKind(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := DefaultRules()
	p := r.PlanEpoch([]memory.Memory{
		mem("e", memory.LayerWorking, memory.KindEpisodic, 0.5),
		mem("s", memory.LayerWorking, memory.KindSemantic, 0.5),
		mem("p", memory.LayerCore, memory.KindProcedural, 0.5),
		mem("z", memory.LayerWorking, memory.KindEpisodic, 0.001),
	}, nil, now)
	for id, want := range map[string]float64{"e": 0.495, "s": 0.497, "p": 0.499, "z": 0} {
		m, ok := find(p.Update, id)
		if !ok {
			t.Fatalf("%s not updated", id)
		}
		if math.Abs(m.Importance-want) > 1e-9 {
			t.Errorf("%s importance = %v, want %v", id, m.Importance, want)
		}
	}
	if len(p.Delete) != 0 {
		t.Fatalf("working memories deleted: %v", p.Delete)
	}
}

func TestPlanEpochBuffer(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := DefaultRules()
	reinforced := mem("reinforced", memory.LayerBuffer, memory.KindSemantic, 0.5)
	reinforced.RepetitionCount = 2 // 5.0
	proc := mem("proc", memory.LayerBuffer, memory.KindProcedural, 0.5)
	proc.CreatedAt = now.Add(-5 * time.Hour)
	young := mem("young", memory.LayerBuffer, memory.KindProcedural, 0.5)
	young.CreatedAt = now.Add(-time.Minute)
	faded := mem("faded", memory.LayerBuffer, memory.KindEpisodic, 0.012)
	starts := []time.Time{now.Add(-4 * time.Hour), now.Add(-3 * time.Hour), now.Add(-2 * time.Hour), now.Add(-time.Hour)}
	p := r.PlanEpoch([]memory.Memory{reinforced, proc, young, faded}, starts, now)
	for id, want := range map[string]memory.Layer{"reinforced": memory.LayerWorking, "proc": memory.LayerWorking, "young": memory.LayerBuffer} {
		m, ok := find(p.Update, id)
		if !ok || m.Layer != want {
			t.Errorf("%s layer = %v (found %v), want %v", id, m.Layer, ok, want)
		}
	}
	if len(p.Delete) != 1 || p.Delete[0] != "faded" {
		t.Fatalf("delete = %v, want [faded]", p.Delete)
	}
	if p.Promoted != 2 {
		t.Fatalf("promoted = %d", p.Promoted)
	}
}

func TestPlanEpochBufferCap(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := DefaultRules()
	r.BufferCap = 2
	p := r.PlanEpoch([]memory.Memory{
		mem("a", memory.LayerBuffer, memory.KindSemantic, 0.9),
		mem("b", memory.LayerBuffer, memory.KindSemantic, 0.2),
		mem("c", memory.LayerBuffer, memory.KindSemantic, 0.5),
	}, nil, now)
	if len(p.Delete) != 1 || p.Delete[0] != "b" {
		t.Fatalf("delete = %v, want [b]", p.Delete)
	}
	if _, ok := find(p.Update, "b"); ok {
		t.Fatal("evicted memory is also updated")
	}
}
