package llm

// Tier names the job a call does, so operators can give each job its own
// model (a cheap one for gating, a strong one for extraction).
type Tier string

// Tiers, after the call sites of the design sources. TierDefault uses the
// default model.
const (
	TierDefault Tier = ""
	TierExtract Tier = "extract"
	TierGate    Tier = "gate"
	TierMerge   Tier = "merge"
	TierAudit   Tier = "audit"
	TierExpand  Tier = "expand"
	TierRerank  Tier = "rerank"
	TierNaming  Tier = "naming"
	TierResume  Tier = "resume"
	TierDistill Tier = "distill"
)

// tiers lists the named tiers in flag order.
var tiers = []Tier{TierExtract, TierGate, TierMerge, TierAudit, TierExpand, TierRerank, TierNaming, TierResume, TierDistill}

// tierFallback is the tier whose model a tier borrows before the default
// model: audit reviews what the gate let through, so it shares its model.
var tierFallback = map[Tier]Tier{TierAudit: TierGate}

// Tiers returns the named tiers.
func Tiers() []Tier { return append([]Tier(nil), tiers...) }

// Valid reports whether t is TierDefault or a named tier.
func (t Tier) Valid() bool {
	if t == TierDefault {
		return true
	}
	for _, known := range tiers {
		if t == known {
			return true
		}
	}
	return false
}

// ModelFor is the model of tier t: its own, else its fallback tier's
// (audit → gate), else the default model.
func (c *Config) ModelFor(t Tier) string {
	for t != TierDefault {
		if m := c.Models[t]; m != "" {
			return m
		}
		t = tierFallback[t]
	}
	return c.Model
}
