// Package storetest is the acceptance suite every store.Store must pass: the
// local engine runs it always, the Qdrant adapter whenever a server is set.
// It tests through the interface only and assumes what Qdrant also gives:
// UUID-shaped ids, float32 scores (compared with a tolerance), cosine
// similarity over normalised vectors, millisecond timestamps at least.
package storetest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"github.com/recollect-dev/recollect/pkg/store"
)

// Harness opens the implementation under test.
type Harness struct {
	// Open returns an empty store (or one whose tenants no other test uses:
	// every subtest uses tenants of its own). The suite closes it.
	Open func(t *testing.T) store.Store
	// Reopen closes s and opens the same data again, as after a restart; nil
	// when the engine has no notion of restarting.
	Reopen func(t *testing.T, s store.Store) store.Store
	// Dim is the vector width the store accepts; 0 means 8. The suite's
	// hand-made vectors are padded with zeros, which keeps their cosines.
	Dim int
	// KnowsTerms: the store answers store.Query.Terms for every hit (the
	// suite then requires it); otherwise it may leave hits TermsUnknown.
	KnowsTerms bool
}

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, h Harness) {
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil")
	}
	if h.Dim == 0 {
		h.Dim = 8
	}
	if h.Dim < 4 {
		t.Fatalf("storetest: Harness.Dim %d is below the 4 dims the corpus needs", h.Dim)
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"RoundTrip", testRoundTrip},
		{"IdempotentUpsert", testIdempotentUpsert},
		{"RejectsInvalidBatch", testRejectsInvalidBatch},
		{"DimensionMismatch", testDimensionMismatch},
		{"LexicalOnly", testLexicalOnly},
		{"TenantIsolation", testTenantIsolation},
		{"Filters", testFilters},
		{"TimeViews", testTimeViews},
		{"TimeDays", testTimeDays},
		{"SearchRanking", testSearchRanking},
		{"SearchK", testSearchK},
		{"SearchTerms", testSearchTerms},
		{"Delete", testDelete},
		{"UpdatePayload", testUpdatePayload},
		{"ConditionalWrites", testConditionalWrites},
		{"Hybrid", testHybrid},
		{"ChunkVectors", testChunkVectors},
		{"ChunkVectorsInvalid", testChunkVectorsInvalid},
		{"Scratch", testScratch},
		{"Sessions", testSessions},
		{"ScrollOrder", testScrollOrder},
		{"ScrollEarlyStop", testScrollEarlyStop},
		{"ScrollMeta", testScrollMeta},
		{"ScrollMetaAfter", testScrollMetaAfter},
		{"Count", testCount},
		{"NotFound", testNotFound},
		{"CancelledContext", testCancelledContext},
		{"Concurrent", testConcurrent},
		{"Closed", testClosed},
		{"TextRanking", testTextRanking},
		{"TextScoring", testTextScoring},
		{"TextAnalysis", testTextAnalysis},
		{"TextIDF", testTextIDF},
		{"TextDeleteAndUpdate", testTextDeleteAndUpdate},
		{"TextTenantIsolation", testTextTenantIsolation},
		{"TextInvalid", testTextInvalid},
	}
	if h.Reopen != nil {
		tests = append(tests, struct {
			name string
			fn   func(t *testing.T, e *env)
		}{"RestartDurability", testRestartDurability})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newEnv(t, h))
		})
	}
}

// env is one subtest's store, closed at cleanup whatever Reopen did to it.
type env struct {
	h Harness
	s store.Store
}

func newEnv(t *testing.T, h Harness) *env {
	e := &env{h: h, s: h.Open(t)}
	if e.s == nil {
		t.Fatal("storetest: Harness.Open returned nil")
	}
	t.Cleanup(func() {
		if err := e.s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("close store: %v", err)
		}
	})
	return e
}

// reopen restarts the store.
func (e *env) reopen(t *testing.T) {
	t.Helper()
	e.s = e.h.Reopen(t, e.s)
	if e.s == nil {
		t.Fatal("storetest: Harness.Reopen returned nil")
	}
}

// tenant names a tenant private to this subtest, so that a shared backend
// (one Qdrant collection) cannot leak between tests or runs.
func tenant(t *testing.T, suffix string) string {
	sum := sha256.Sum256([]byte(t.Name()))
	return fmt.Sprintf("st-%x-%s", sum[:6], suffix)
}
