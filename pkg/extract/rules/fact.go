// Package rules is zero-cost rule capture (004 Auto-Capture): regular
// patterns turn a user's preferences, corrections, constraints and
// self-disclosures into facts without a model call. It favours precision:
// questions, hypotheticals, negated mentions, quoted text and code produce
// nothing, and every fact's content is built from the message's own words so
// that the grounding filter downstream keeps it.
package rules

import "github.com/recollect-dev/recollect/pkg/memory"

// Fact is one captured fact.
type Fact struct {
	Key        string      // normalised with memory.NormalizeKey, path-like: "preference/indentation"
	Content    string      // self-contained sentence built from the message's words
	Domain     string      // memory.DomainToolUsage, DomainUserPreferences or DomainGeneral
	Type       memory.Type // preference, policy, fact, workflow, entity, decision
	Kind       memory.Kind
	Importance float64 // from the type (ImportanceOf); corrections at least CorrectionImportance
	Confidence float64 // memory.ConfidenceExplicit for first-person statements, inferred when hedged
	Evidence   string  // the exact clause of the message that produced the fact
	Tags       []string
	Rule       string // which rule fired, for metrics: "preference.prefer"
}

// MaxContentChars bounds a captured fact's content and evidence (bytes).
const MaxContentChars = 500

// CorrectionImportance is the floor for corrections (004: high priority).
const CorrectionImportance = 0.8

// ImportanceOf maps a type to the importance of a captured fact (004 priorities).
func ImportanceOf(t memory.Type) float64 {
	switch t {
	case memory.TypePolicy:
		return 0.9
	case memory.TypeWorkflow, memory.TypePitfall, memory.TypeArchitecture, memory.TypeProcedure:
		return 0.8
	case memory.TypePreference, memory.TypeDecision, memory.TypeStyle:
		return 0.7
	default:
		return 0.5
	}
}

// Rule names, one per pattern family; metrics label facts with them.
const (
	RulePrefer        = "preference.prefer"
	RuleRather        = "preference.rather"
	RuleLike          = "preference.like"
	RuleDislike       = "preference.dislike"
	RuleFavourite     = "preference.favourite"
	RuleHabit         = "preference.habit"
	RuleAlways        = "directive.always"
	RuleNever         = "directive.never"
	RuleMakeSure      = "directive.make-sure"
	RuleFromNowOn     = "directive.from-now-on"
	RuleStopStart     = "directive.stop-start"
	RuleMust          = "policy.must"
	RuleDontEver      = "policy.dont-ever"
	RuleRequired      = "policy.required"
	RuleName          = "profile.name"
	RuleCallMe        = "profile.call-me"
	RuleRole          = "profile.role"
	RuleEmployer      = "profile.employer"
	RuleLocation      = "profile.location"
	RuleAllergy       = "profile.allergy"
	RuleRelation      = "profile.relation"
	RuleProfile       = "profile.attribute"
	RuleUse           = "usage.use"
	RuleProject       = "project.fact"
	RuleDecision      = "decision.decided"
	RuleRemember      = "remember.fact"
	RuleCorrection    = "correction.statement"
	RuleCorrectNotBut = "correction.not-but"
	RuleNoLonger      = "correction.no-longer"
	RuleMovedFrom     = "correction.moved-from"
)

// RuleNames lists every rule name Capture can report, for metrics.
func RuleNames() []string {
	return []string{RulePrefer, RuleRather, RuleLike, RuleDislike, RuleFavourite, RuleHabit,
		RuleAlways, RuleNever, RuleMakeSure, RuleFromNowOn, RuleStopStart, RuleMust, RuleDontEver,
		RuleRequired, RuleName, RuleCallMe, RuleRole, RuleEmployer, RuleLocation, RuleAllergy,
		RuleRelation, RuleProfile, RuleUse, RuleProject, RuleDecision, RuleRemember, RuleCorrection,
		RuleCorrectNotBut, RuleNoLonger, RuleMovedFrom}
}
