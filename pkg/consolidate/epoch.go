// Package consolidate is the consolidator module: per-tenant epochs that
// decay importance by kind, promote buffer memories to working and evict
// fully decayed buffer memories (003), one epoch per tenant at a time.
package consolidate

import (
	"slices"
	"sort"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Rules are the epoch thresholds of 003.
type Rules struct {
	DecayEpisodic   float64 // importance lost per epoch
	DecaySemantic   float64
	DecayProcedural float64
	DropThreshold   float64 // buffer memories below it are evicted
	BufferThreshold float64 // reinforcement score that promotes buffer → working
	KindPromoteAge  int     // epochs in buffer after which procedural/lesson memories promote
	BufferCap       int     // most buffer memories per tenant
}

// DefaultRules are 003's defaults.
func DefaultRules() Rules {
	return Rules{DecayEpisodic: 0.005, DecaySemantic: 0.003, DecayProcedural: 0.001,
		DropThreshold: 0.01, BufferThreshold: 5, KindPromoteAge: 4, BufferCap: 200}
}

// Decay is the importance a memory of kind k loses per epoch.
func (r Rules) Decay(k memory.Kind) float64 {
	switch k {
	case memory.KindEpisodic:
		return r.DecayEpisodic
	case memory.KindProcedural:
		return r.DecayProcedural
	default:
		return r.DecaySemantic
	}
}

// Reinforcement is 003's reinforcement score.
func Reinforcement(m memory.Memory) float64 {
	return float64(m.AccessCount) + float64(m.RepetitionCount)*2.5
}

// Plan is what one epoch changes.
type Plan struct {
	Update   []memory.Memory
	Delete   []string
	Decayed  int
	Promoted int
}

// PlanEpoch computes an epoch over a tenant's memories. epochStarts are the
// start times of earlier epochs, newest last; a memory created before the
// KindPromoteAge-th newest has spent that many epochs in the buffer.
func (r Rules) PlanEpoch(mems []memory.Memory, epochStarts []time.Time, now time.Time) Plan {
	var p Plan
	var cutoff time.Time
	if n := len(epochStarts); r.KindPromoteAge > 0 && n >= r.KindPromoteAge {
		cutoff = epochStarts[n-r.KindPromoteAge]
	}
	var buffer []int // indexes into p.Update of memories staying in buffer
	for _, m := range mems {
		if m.Archived {
			continue
		}
		changed := false
		if m.Layer == memory.LayerBuffer {
			lesson := slices.Contains(m.Tags, "lesson")
			aged := !cutoff.IsZero() && m.CreatedAt.Before(cutoff)
			if Reinforcement(m) >= r.BufferThreshold || ((m.Kind == memory.KindProcedural || lesson) && aged) {
				m.Layer = memory.LayerWorking
				p.Promoted++
				changed = true
			}
		}
		if d := r.Decay(m.Kind); m.Importance > 0 && d > 0 {
			m.Importance = max(0, m.Importance-d)
			p.Decayed++
			changed = true
		}
		if m.Layer == memory.LayerBuffer && m.Importance < r.DropThreshold {
			p.Delete = append(p.Delete, m.ID)
			continue
		}
		if changed {
			m.ModifiedAt = now
			p.Update = append(p.Update, m)
		}
		if m.Layer == memory.LayerBuffer {
			if !changed {
				p.Update = append(p.Update, m) // candidate for the cap; dropped below if unchanged and kept
			}
			buffer = append(buffer, len(p.Update)-1)
		}
	}
	// Capacity cap: evict the lowest-weight buffer memories.
	evict := map[int]bool{}
	if r.BufferCap > 0 && len(buffer) > r.BufferCap {
		sort.SliceStable(buffer, func(i, j int) bool {
			a, b := p.Update[buffer[i]], p.Update[buffer[j]]
			wa, wb := a.Importance+Reinforcement(a)/10, b.Importance+Reinforcement(b)/10
			if wa != wb {
				return wa < wb
			}
			return a.ID < b.ID
		})
		for _, i := range buffer[:len(buffer)-r.BufferCap] {
			evict[i] = true
			p.Delete = append(p.Delete, p.Update[i].ID)
		}
	}
	kept := p.Update[:0]
	for i, m := range p.Update {
		if evict[i] || m.ModifiedAt != now {
			continue
		}
		kept = append(kept, m)
	}
	p.Update = kept
	return p
}
