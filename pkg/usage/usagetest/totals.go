package usagetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/usage"
)

func testEmpty(t *testing.T, w usage.Writer, r usage.Reader) {
	wantTotals(t, "fresh backend", totals(t, r, usage.Query{}), nil)
	write(t, w, nil)
	write(t, w, []usage.Record{})
	wantTotals(t, "after empty writes", totals(t, r, usage.Query{}), nil)
	write(t, w, []usage.Record{rec("embedder", "minilm", 1, 0, time.Millisecond, usage.OutcomeOK)})
	wantTotals(t, "unknown tenant", totals(t, r, usage.Query{Tenant: "nobody"}), nil)
	wantTotals(t, "range after every record", totals(t, r, usage.Query{Since: t0.Add(time.Hour)}), nil)
}

// fixture covers several components and models, an error and an outcome
// other than ok or error (which counts as an error).
func fixture() (first, second []usage.Record, want []usage.Total) {
	first = []usage.Record{
		rec("embedder", "minilm", 10, 0, 1*time.Millisecond, usage.OutcomeOK),
		rec("extractor", "gpt-4o-mini", 100, 50, time.Second, usage.OutcomeOK),
		rec("embedder", "minilm", 20, 0, 2*time.Millisecond, usage.OutcomeOK),
		rec("consolidator", "gpt-4o-mini", 300, 0, 30*time.Second, "timeout"),
	}
	second = []usage.Record{
		rec("extractor", "gpt-4o-mini", 80, 0, 250*time.Millisecond, usage.OutcomeError),
		rec("embedder", "minilm", 30, 0, 3*time.Millisecond, usage.OutcomeOK),
		rec("extractor", "llama3", 7, 3, 1500*time.Microsecond, usage.OutcomeOK),
	}
	want = []usage.Total{
		{Component: "consolidator", Model: "gpt-4o-mini", Calls: 1, Errors: 1, InputTokens: 300, Duration: 30 * time.Second},
		{Component: "embedder", Model: "minilm", Calls: 3, InputTokens: 60, Duration: 6 * time.Millisecond},
		{Component: "extractor", Model: "gpt-4o-mini", Calls: 2, Errors: 1, InputTokens: 180, OutputTokens: 50, Duration: 1250 * time.Millisecond},
		{Component: "extractor", Model: "llama3", Calls: 1, InputTokens: 7, OutputTokens: 3, Duration: 1500 * time.Microsecond},
	}
	return first, second, want
}

func testTotals(t *testing.T, w usage.Writer, r usage.Reader) {
	first, second, want := fixture()
	write(t, w, first)
	write(t, w, second)
	wantTotals(t, "all", totals(t, r, usage.Query{}), want)
	wantTotals(t, "tenant acme", totals(t, r, usage.Query{Tenant: "acme"}), want)
}

func testBatchesAccumulate(t *testing.T, w usage.Writer, r usage.Reader) {
	one := rec("query", "minilm", 5, 0, time.Millisecond, usage.OutcomeOK)
	for i := 1; i <= 3; i++ {
		write(t, w, []usage.Record{one})
		wantTotals(t, fmt.Sprintf("after %d writes", i), totals(t, r, usage.Query{}), []usage.Total{
			{Component: "query", Model: "minilm", Calls: int64(i), InputTokens: int64(5 * i), Duration: time.Duration(i) * time.Millisecond},
		})
	}
}

// testLargeBatch writes 1,000 records in one batch over 4 components and 3
// models.
func testLargeBatch(t *testing.T, w usage.Writer, r usage.Reader) {
	const n = 1000
	components := []string{"consolidator", "embedder", "extractor", "query"}
	models := []string{"m0", "m1", "m2"}
	recs := make([]usage.Record, 0, n)
	want := make([]usage.Total, 0, len(components)*len(models))
	for _, c := range components {
		for _, m := range models {
			want = append(want, usage.Total{Component: c, Model: m})
		}
	}
	for i := range n {
		ci, mi := i%len(components), i%len(models)
		outcome := usage.OutcomeOK
		if i%10 == 0 {
			outcome = usage.OutcomeError
		}
		x := rec(components[ci], models[mi], int64(i), int64(2*i), time.Duration(i)*time.Microsecond, outcome)
		x.Time = t0.Add(time.Duration(i%60) * time.Second)
		recs = append(recs, x)
		tot := &want[ci*len(models)+mi]
		tot.Calls++
		if outcome != usage.OutcomeOK {
			tot.Errors++
		}
		tot.InputTokens += int64(i)
		tot.OutputTokens += int64(2 * i)
		tot.Duration += time.Duration(i) * time.Microsecond
	}
	write(t, w, recs)
	wantTotals(t, "1000 records", totals(t, r, usage.Query{}), want)
}

func testLargeValues(t *testing.T, w usage.Writer, r usage.Reader) {
	big := rec("extractor", "big", 1<<40, 1<<33, 90*time.Minute, usage.OutcomeOK)
	write(t, w, []usage.Record{big, big})
	wantTotals(t, "large values", totals(t, r, usage.Query{}), []usage.Total{
		{Component: "extractor", Model: "big", Calls: 2, InputTokens: 1 << 41, OutputTokens: 1 << 34, Duration: 180 * time.Minute},
	})
}

// testUnusualStrings guards quoting: names with quotes, backslashes,
// newlines and non-ASCII must round-trip and filter exactly.
func testUnusualStrings(t *testing.T, w usage.Writer, r usage.Reader) {
	tenant := `o'brien\"; DROP TABLE x; --`
	x := rec("ext'ractor\"\n", "модель/v1 ✓ \\", 1, 2, time.Second, usage.OutcomeOK)
	x.Tenant = tenant
	x.Provider = "ollama'"
	plain := rec("extractor", "m", 1, 1, time.Second, usage.OutcomeOK)
	write(t, w, []usage.Record{x, plain})
	wantTotals(t, "odd tenant", totals(t, r, usage.Query{Tenant: tenant}), []usage.Total{
		{Component: x.Component, Model: x.Model, Calls: 1, InputTokens: 1, OutputTokens: 2, Duration: time.Second},
	})
	wantTotals(t, "prefix of odd tenant", totals(t, r, usage.Query{Tenant: "o'brien"}), nil)
}

// testSameIDCountsOnce: a batch written again (replayed from the spool
// after a crash between the write and the spool's release) counts once;
// distinct ids and records without an id count each.
func testSameIDCountsOnce(t *testing.T, w usage.Writer, r usage.Reader) {
	var batch []usage.Record
	for i := range 3 {
		x := rec("extractor", "gpt", 10, 1, time.Second, usage.OutcomeOK)
		x.ID = fmt.Sprintf("id-%d", i)
		batch = append(batch, x)
	}
	anon := rec("extractor", "gpt", 10, 1, time.Second, usage.OutcomeOK)
	write(t, w, append(batch, anon))
	write(t, w, append(batch[1:], anon)) // a replay of two, and another anonymous call
	wantTotals(t, "after a replay", totals(t, r, usage.Query{}), []usage.Total{
		{Component: "extractor", Model: "gpt", Calls: 5, InputTokens: 50, OutputTokens: 5, Duration: 5 * time.Second},
	})
	wantTotals(t, "filtered by tenant", totals(t, r, usage.Query{Tenant: "acme", Since: t0, Until: t0.Add(time.Second)}), []usage.Total{
		{Component: "extractor", Model: "gpt", Calls: 5, InputTokens: 50, OutputTokens: 5, Duration: 5 * time.Second},
	})
}
