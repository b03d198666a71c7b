package soak

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
)

// TestSoakShort runs a 20-second soak against an in-process `recollect run`.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20-second soak; skipped with -short")
	}
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Web.Addr = "127.0.0.1:0"
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })

	sc := Defaults()
	sc.URL, sc.Duration, sc.SampleEvery, sc.Rate, sc.Settle = a.Web().URL(), 20*time.Second, 2*time.Second, 20, time.Minute
	// Twenty seconds is mostly warm-up (caches, the model's buffers): only
	// a gross rise fails here; the 30-minute soak uses the defaults.
	sc.RSSGrowth, sc.GoroutineGrowth = 2, 2
	rep, err := Run(context.Background(), sc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("soak: %d ops, %d events and %d learns acked, %d forgotten, %d stored, recall p99 %.1f ms, rss %.0f→%.0f MB, goroutines %.0f→%.0f",
		rep.Ops, rep.Ingested, rep.Learned, rep.Forgotten, rep.Stored, rep.RecallP99Ms, rep.RSSFirst/(1<<20), rep.RSSLast/(1<<20), rep.GoroutinesFirst, rep.GoroutinesLast)
	if len(rep.Failures) > 0 {
		t.Fatalf("soak failed: %s", strings.Join(rep.Failures, "; "))
	}
	if rep.Ingested == 0 || rep.Learned == 0 || rep.Recalls == 0 {
		t.Fatalf("soak did not mix its operations: %d ingested, %d learned, %d recalls", rep.Ingested, rep.Learned, rep.Recalls)
	}
	if rep.Forgotten == 0 {
		t.Fatal("the steady phase forgot nothing")
	}
	if rep.Stored != rep.Ingested+rep.Learned-rep.Forgotten {
		t.Fatalf("stored %d, want %d acked - %d forgotten", rep.Stored, rep.Ingested+rep.Learned, rep.Forgotten)
	}
}

// TestJudge holds the verdict to its bounds: a flat run passes, a rising
// one, a lost event or too few samples fail.
func TestJudge(t *testing.T) {
	flat := func(rss, gor func(i int) float64) []Sample {
		var s []Sample
		for i := range 9 {
			s = append(s, Sample{AtS: float64(i), Steady: true, RSSBytes: rss(i), Goroutines: gor(i)})
		}
		return s
	}
	const mb = 1 << 20
	steady := func(int) float64 { return 100 * mb }
	gor := func(int) float64 { return 40 }
	for _, tc := range []struct {
		name string
		rep  Report
		want string // "" = pass
	}{
		{"flat", Report{Samples: flat(steady, gor)}, ""},
		{"warm-up spike ignored", Report{Samples: flat(func(i int) float64 {
			if i == 0 {
				return 10 * mb
			}
			return 100 * mb
		}, gor)}, ""},
		{"rss leak", Report{Samples: flat(func(i int) float64 { return float64(100+30*i) * mb }, gor)}, "resident memory rose"},
		{"goroutine leak", Report{Samples: flat(steady, func(i int) float64 { return float64(40 + 30*i) })}, "goroutines rose"},
		{"lost", Report{Lost: 1, Samples: flat(steady, gor)}, "not stored"},
		{"duplicated", Report{Duplicated: 2, Samples: flat(steady, gor)}, "more than once"},
		{"errors", Report{Ops: 100, Errors: 5, Samples: flat(steady, gor)}, "operations failed"},
		{"few samples", Report{Samples: flat(steady, gor)[:3]}, "metric samples"},
		{"growth in the warm-up ignored", Report{Samples: append(warm(flat(func(i int) float64 { return float64(100+100*i) * mb }, gor)),
			flat(func(int) float64 { return 900 * mb }, gor)...)}, ""},
		{"few steady samples", Report{Samples: append(warm(flat(steady, gor)), flat(steady, gor)[:4]...)}, "steady phase"},
		{"forgotten left", Report{ForgottenLeft: 1, Samples: flat(steady, gor)}, "forgotten writes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rep.Config = Defaults()
			tc.rep.judge()
			got := strings.Join(tc.rep.Failures, "; ")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("failures %q, want %q", got, tc.want)
			}
		})
	}
}

// warm marks samples as taken in the warm-up.
func warm(s []Sample) []Sample {
	for i := range s {
		s[i].Steady = false
	}
	return s
}
