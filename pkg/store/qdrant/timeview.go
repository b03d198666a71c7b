package qdrant

import (
	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// viewConditions are memory.TimeView.Holds as Qdrant conditions, on the
// RFC 3339 fields (datetime-indexed) so that points written before
// valid_until existed answer too: a point without valid_from is valid from
// created_at, one without valid_until until its invalid_at.
func viewConditions(v memory.TimeView) []*qdrant.Condition {
	var conds []*qdrant.Condition
	if !v.KnownAt.IsZero() {
		k := timestamppb.New(v.KnownAt)
		conds = append(conds,
			qdrant.NewDatetimeRange(fCreatedAt, &qdrant.DatetimeRange{Lte: k}),
			anyOf(qdrant.NewIsEmpty(fInvalidAt), qdrant.NewDatetimeRange(fInvalidAt, &qdrant.DatetimeRange{Gt: k})))
	}
	if v.AsOf.IsZero() {
		return conds
	}
	t := timestamppb.New(v.AsOf)
	since := anyOf(
		qdrant.NewDatetimeRange(fValidFrom, &qdrant.DatetimeRange{Lte: t}),
		allOf(qdrant.NewIsEmpty(fValidFrom), qdrant.NewDatetimeRange(fCreatedAt, &qdrant.DatetimeRange{Lte: t})))
	open := []*qdrant.Condition{
		qdrant.NewDatetimeRange(fValidUntil, &qdrant.DatetimeRange{Gt: t}),
		allOf(qdrant.NewIsEmpty(fValidUntil),
			anyOf(qdrant.NewIsEmpty(fInvalidAt), qdrant.NewDatetimeRange(fInvalidAt, &qdrant.DatetimeRange{Gt: t}))),
	}
	if !v.KnownAt.IsZero() {
		// Closed only after known_at: not known closed then.
		open = append(open, qdrant.NewDatetimeRange(fInvalidAt, &qdrant.DatetimeRange{Gt: timestamppb.New(v.KnownAt)}))
	}
	return append(conds, since, anyOf(open...))
}

func anyOf(cs ...*qdrant.Condition) *qdrant.Condition {
	return qdrant.NewFilterAsCondition(&qdrant.Filter{Should: cs})
}

func allOf(cs ...*qdrant.Condition) *qdrant.Condition {
	return qdrant.NewFilterAsCondition(&qdrant.Filter{Must: cs})
}
