package lexical

import (
	"strings"
	"testing"
)

// benchText is a typical memory: prose with an identifier or two.
const benchText = "The user prefers running `make test` before pushing to the main branch; " +
	"CI uses pgvector on PostgreSQL 16 and the config lives in deploy/values.yaml. " +
	"Caroline's team switched from snake_case to camelCase in the frontend last week."

func BenchmarkTerms(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if len(Terms(benchText)) == 0 {
			b.Fatal("no terms")
		}
	}
	b.ReportMetric(float64(len(Terms(benchText)))*float64(b.N)/b.Elapsed().Seconds(), "terms/s")
}

// BenchmarkAnyTermMiss is recall's check that a dense-only hit shares no
// term with the query: the whole text is read.
func BenchmarkAnyTermMiss(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if AnyTerm(benchText, func(t string) bool { return t == "absent" }) {
			b.Fatal("found")
		}
	}
}

func BenchmarkVector(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if Vector(benchText).Len() == 0 {
			b.Fatal("empty vector")
		}
	}
}

func BenchmarkTermsCJK(b *testing.B) {
	text := strings.Repeat("我喜欢机器学习和自然语言处理。", 8)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if len(Terms(text)) == 0 {
			b.Fatal("no terms")
		}
	}
}
