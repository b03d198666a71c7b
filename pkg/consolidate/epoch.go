// Package consolidate is the consolidator module: per-tenant epochs that
// move memories through the buffer → working → core lifecycle of 003
// (mechanical promotion, triage, the gate to core), keep knowledge true
// over time (key supersession, reconcile, merge, distillation, audit with a
// sandbox), decay importance by kind and apply the retention policies of
// the seeds — every one of them an archive, never a delete. One epoch per
// tenant runs at a time; a redelivered epoch applies nothing twice.
package consolidate

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Rules are the epoch thresholds. The defaults are 003's (§8) and the
// other seeds' where they set one; docs/ARCHITECTURE.md lists where they
// differ and why.
type Rules struct {
	DecayEpisodic   float64 // importance lost per epoch
	DecaySemantic   float64
	DecayProcedural float64
	DropThreshold   float64 // buffer memories below it are archived
	BufferThreshold float64 // reinforcement score that promotes buffer → working
	KindPromoteAge  int     // epochs in buffer after which procedural/lesson memories promote
	BufferCap       int     // most buffer memories per tenant (explicit ones not counted); the rest archived

	TriageMinAge   time.Duration // buffer memories younger than this are not triaged
	TriageBatch    int           // memories per triage call (003: 20)
	TriageMaxCalls int           // triage calls per epoch

	PromoteThreshold float64       // reinforcement for working → core candidacy (003: 3)
	PromoteMinImp    float64       // least importance of a core candidate (003: 0.6)
	WorkingAgeGate   time.Duration // age that makes a working memory a candidate (003: 7 days)
	GateCooldown1    int           // epochs before a first rejection is retried (003: 48)
	GateCooldown2    int           // epochs before a second rejection is retried (003: 144)
	GateBatch        int           // candidates per gate call
	GateMaxCalls     int           // gate calls per epoch

	BufferDedupSim   float64       // buffer restatements folded without an LLM (003 TRIAGE_DEDUP_SIM 0.75; 0 = off)
	CoreOverlapSim   float64       // core overlaps flagged (003 CORE_OVERLAP_SIM 0.70; 0 = off)
	MergeSim         float64       // merge threshold (003 MERGE_SIM 0.78)
	ReconcileMinSim  float64       // reconcile window, exclusive lower bound (0.55)
	ReconcileMinGap  time.Duration // the newer of a reconciled pair is at least this newer (1h)
	Neighbours       int           // store neighbours looked at per changed memory
	MaxPairCalls     int           // merge + reconcile LLM calls per epoch
	MaxQueuedPairs   int           // most pairs carried to later epochs per tenant (0 = no cap)
	DistillMinNotes  int           // session notes that trigger a distillation (3)
	DistillMaxNotes  int           // latest notes a distillation reads (10)
	DistillMaxCalls  int           // distillation calls per epoch, newest groups first
	DistillMaxChars  int           // longest status (250)
	AuditEvery       int           // at llm-level auto, an audit every this many epochs (0 = never)
	AuditMaxMemories int           // most memories shown to one audit call
	SandboxThreshold float64       // share of good audit operations needed to apply any (0.70)
	SandboxRecentMod time.Duration // audit may not touch memories modified this recently (24h)
	SandboxNewAge    time.Duration // audit may not demote or merge memories younger than this (48h)

	TenantCap          int           // 000's prune cap (5000), as an archive; 0 = off
	PruneHalfLife      time.Duration // 000's recency half-life (90 days)
	StaleImportance    float64       // 004: unused memories below this importance are archived; 0 = off
	SubjectKeep        int           // 002: most active inferred memories per user subject; 0 = off
	LoreKeep           int           // 002: most active inferred lore memories; 0 = off
	ProvisionalConf    float64       // 001: inferred memories below this confidence …
	ProvisionalAge     time.Duration // … never reinforced and older than this are archived; 0 = off
	ArchivedRetention  time.Duration // operator: archived memories older than this are deleted; 0 = keep forever
	MaxArchivePerEpoch int           // bound on archives per epoch and policy, so one epoch stays short

	// Transcript memories (one per conversation message) are kept by
	// default; an operator may archive them by age or beyond a count per
	// tenant (never deleted by these).
	TranscriptMaxAge time.Duration // archive transcript memories said longer ago than this; 0 = keep
	TranscriptKeep   int           // most active transcript memories per tenant, the oldest archived; 0 = keep all
}

// DefaultRules are the seeds' defaults.
func DefaultRules() Rules {
	return Rules{
		DecayEpisodic: 0.005, DecaySemantic: 0.003, DecayProcedural: 0.001,
		DropThreshold: 0.01, BufferThreshold: 5, KindPromoteAge: 4, BufferCap: 200,
		TriageMinAge: 10 * time.Minute, TriageBatch: 20, TriageMaxCalls: 5,
		PromoteThreshold: 3, PromoteMinImp: 0.6, WorkingAgeGate: 7 * 24 * time.Hour,
		GateCooldown1: 48, GateCooldown2: 144, GateBatch: 20, GateMaxCalls: 3,
		BufferDedupSim: 0.75, CoreOverlapSim: 0.70, MergeSim: 0.78, ReconcileMinSim: 0.55, ReconcileMinGap: time.Hour, Neighbours: 8, MaxPairCalls: 40, MaxQueuedPairs: 5000,
		DistillMinNotes: 3, DistillMaxNotes: 10, DistillMaxChars: 250, DistillMaxCalls: 5,
		AuditEvery: 48, AuditMaxMemories: 120, SandboxThreshold: 0.70,
		SandboxRecentMod: 24 * time.Hour, SandboxNewAge: 48 * time.Hour,
		TenantCap: 5000, PruneHalfLife: 90 * 24 * time.Hour, StaleImportance: 0.1,
		SubjectKeep: 0, LoreKeep: 0, ProvisionalConf: 0.65, ProvisionalAge: 0,
		MaxArchivePerEpoch: 10000,
	}
}

// RegisterFlags sets the defaults and adds the rule flags; the rules
// without a flag keep their default.
func (r *Rules) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	d := DefaultRules()
	*r = d
	fs.Float64Var(&r.DecayEpisodic, prefix+"decay-episodic", d.DecayEpisodic, "importance episodic memories lose per epoch")
	fs.Float64Var(&r.DecaySemantic, prefix+"decay-semantic", d.DecaySemantic, "importance semantic memories lose per epoch")
	fs.Float64Var(&r.DecayProcedural, prefix+"decay-procedural", d.DecayProcedural, "importance procedural memories lose per epoch")
	fs.Float64Var(&r.DropThreshold, prefix+"decay-drop-threshold", d.DropThreshold, "inferred buffer memories below this importance are archived")
	fs.Float64Var(&r.BufferThreshold, prefix+"buffer-promote-threshold", d.BufferThreshold, "reinforcement score (access + 2.5 × repetition) promoting buffer to working")
	fs.IntVar(&r.KindPromoteAge, prefix+"buffer-kind-promote-epochs", d.KindPromoteAge, "epochs after which procedural and lesson memories leave the buffer")
	fs.IntVar(&r.BufferCap, prefix+"buffer-cap", d.BufferCap, "most inferred buffer memories per tenant; the lowest-weight beyond it are archived (explicit memories are never capped; 0 = no cap)")
	fs.DurationVar(&r.TriageMinAge, prefix+"triage-min-age", d.TriageMinAge, "buffer memories younger than this are not triaged: an epoch leaves them for a later one (consolidate says how many)")
	fs.Float64Var(&r.PromoteThreshold, prefix+"core-promote-threshold", d.PromoteThreshold, "reinforcement score making a working memory a core candidate")
	fs.Float64Var(&r.PromoteMinImp, prefix+"core-promote-min-importance", d.PromoteMinImp, "least importance of a core candidate")
	fs.DurationVar(&r.WorkingAgeGate, prefix+"core-promote-age", d.WorkingAgeGate, "age making a reinforced working memory a core candidate")
	fs.IntVar(&r.GateCooldown1, prefix+"gate-cooldown-1", d.GateCooldown1, "epochs before a memory the gate rejected once is reviewed again")
	fs.IntVar(&r.GateCooldown2, prefix+"gate-cooldown-2", d.GateCooldown2, "epochs before a memory the gate rejected twice is reviewed a last time")
	fs.Float64Var(&r.BufferDedupSim, prefix+"buffer-dedup-similarity", d.BufferDedupSim, "cosine above which a buffer memory saying the same thing as another is folded into it as a restatement, without an LLM (0 = off)")
	fs.Float64Var(&r.CoreOverlapSim, prefix+"core-overlap-similarity", d.CoreOverlapSim, "cosine above which a memory entering core is flagged as overlapping another (merged through the sandbox with an LLM; 0 = off)")
	fs.Float64Var(&r.MergeSim, prefix+"merge-similarity", d.MergeSim, "cosine above which two memories are merged (with an LLM)")
	fs.Float64Var(&r.ReconcileMinSim, prefix+"reconcile-min-similarity", d.ReconcileMinSim, "cosine above which a newer memory may update an older one (with an LLM)")
	fs.IntVar(&r.MaxPairCalls, prefix+"consolidate-max-pair-calls", d.MaxPairCalls, "most merge, reconcile and review LLM calls per epoch (reviews and reconciles first, merges with what they leave; the rest waits in the tenant's pair queue for the next epoch)")
	fs.IntVar(&r.MaxQueuedPairs, prefix+"consolidate-max-queued-pairs", d.MaxQueuedPairs, "most pairs a tenant's queue carries to later epochs; pairs beyond it are refused in the audit log, both memories kept (0 = no cap)")
	fs.IntVar(&r.DistillMaxCalls, prefix+"distill-max-calls", d.DistillMaxCalls, "most distillation LLM calls per epoch, newest groups of session notes first")
	fs.IntVar(&r.MaxArchivePerEpoch, prefix+"max-archive-per-epoch", d.MaxArchivePerEpoch, "most memories one epoch archives, over every policy (the rest waits for the next epoch)")
	fs.IntVar(&r.AuditEvery, prefix+"audit-every", d.AuditEvery, "at llm-level auto, run the LLM audit every this many epochs (full: every epoch; 0: never)")
	fs.IntVar(&r.TenantCap, prefix+"tenant-cap", d.TenantCap, "most active memories per tenant (000's prune cap); the lowest-scored inferred ones beyond it are archived (0 = no cap)")
	fs.Float64Var(&r.StaleImportance, prefix+"stale-importance", d.StaleImportance, "inferred working memories never used and decayed below this importance are archived (004; 0 = off)")
	fs.IntVar(&r.SubjectKeep, prefix+"subject-keep", d.SubjectKeep, "most active inferred memories per user subject, older ones archived (002 uses 80; 0 = off)")
	fs.IntVar(&r.LoreKeep, prefix+"lore-keep", d.LoreKeep, "most active inferred lore memories, older ones archived (002 uses 120; 0 = off)")
	fs.DurationVar(&r.ProvisionalAge, prefix+"provisional-age", d.ProvisionalAge, "inferred low-confidence memories never reinforced nor recalled are archived this long after they were created (001 uses 720h; 0 = off)")
	fs.DurationVar(&r.TranscriptMaxAge, prefix+"transcript-max-age", d.TranscriptMaxAge, "archive transcript memories (one per conversation message) said longer ago than this (0 = keep them)")
	fs.IntVar(&r.TranscriptKeep, prefix+"transcript-keep", d.TranscriptKeep, "most active transcript memories per tenant; the oldest beyond it are archived (0 = keep all)")
	fs.DurationVar(&r.ArchivedRetention, prefix+"archived-retention", d.ArchivedRetention, "delete archived memories this long after they were archived (0 = keep them forever)")
}

// Validate checks the rules.
func (r *Rules) Validate() error {
	var errs []error
	if r.DecayEpisodic < 0 || r.DecaySemantic < 0 || r.DecayProcedural < 0 {
		errs = append(errs, errors.New("decay rates must not be negative"))
	}
	for name, v := range map[string]int{"buffer-cap": r.BufferCap, "tenant-cap": r.TenantCap, "subject-keep": r.SubjectKeep,
		"lore-keep": r.LoreKeep, "audit-every": r.AuditEvery, "consolidate-max-pair-calls": r.MaxPairCalls,
		"consolidate-max-queued-pairs": r.MaxQueuedPairs,
		"distill-max-calls":            r.DistillMaxCalls, "max-archive-per-epoch": r.MaxArchivePerEpoch,
		"gate-cooldown-1": r.GateCooldown1, "gate-cooldown-2": r.GateCooldown2, "transcript-keep": r.TranscriptKeep} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative (got %d)", name, v))
		}
	}
	for name, v := range map[string]float64{"merge-similarity": r.MergeSim, "buffer-dedup-similarity": r.BufferDedupSim, "core-overlap-similarity": r.CoreOverlapSim, "reconcile-min-similarity": r.ReconcileMinSim,
		"core-promote-min-importance": r.PromoteMinImp, "stale-importance": r.StaleImportance} {
		if v < 0 || v > 1 {
			errs = append(errs, fmt.Errorf("%s must be within 0..1 (got %v)", name, v))
		}
	}
	if r.ReconcileMinSim >= r.MergeSim {
		errs = append(errs, fmt.Errorf("reconcile-min-similarity (%v) must be below merge-similarity (%v)", r.ReconcileMinSim, r.MergeSim))
	}
	for name, v := range map[string]time.Duration{"archived-retention": r.ArchivedRetention, "provisional-age": r.ProvisionalAge,
		"triage-min-age": r.TriageMinAge, "core-promote-age": r.WorkingAgeGate, "transcript-max-age": r.TranscriptMaxAge} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative (got %s)", name, v))
		}
	}
	return errors.Join(errs...)
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
func Reinforcement(m *memory.Memory) float64 {
	return float64(m.AccessCount) + float64(m.RepetitionCount)*2.5
}

// Tags the lifecycle reads and writes (003's names).
const (
	TagTriaged       = "_triaged"
	TagLesson        = "lesson"
	TagSession       = "session"
	TagEphemeral     = "ephemeral"
	TagDistilled     = "distilled"
	TagAutoDistilled = "auto-distilled"
	TagProjectStatus = "project-status"
	TagGateRejected  = "gate-rejected"
	TagGateRejected2 = "gate-rejected-2"
	TagGateFinal     = "gate-rejected-final"
)

func hasTag(m *memory.Memory, tag string) bool { return slices.Contains(m.Tags, tag) }

// sessionNote reports whether m is a session note (003: source or tag
// "session"): an end-of-session or compaction episode, or tagged so.
func sessionNote(m *memory.Memory) bool {
	if hasTag(m, TagSession) {
		return true
	}
	return m.Type == memory.TypeEpisode && (m.Source == memory.SourceExit || m.Source == memory.SourceCompaction)
}

// active reports whether m takes part in the lifecycle: neither archived
// nor superseded.
func active(m *memory.Memory) bool { return !m.Archived && !m.Superseded() }
