package usage

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestConfig(t *testing.T) {
	var c Config
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	c.RegisterFlags("x-", fs)
	if err := fs.Parse([]string{"--x-usage-buffer-size=50", "--x-usage-batch-size=5", "--x-usage-flush-interval=2s", "--x-usage-prices=m=1/2"}); err != nil {
		t.Fatalf("parse flags: %v", err)
	}
	if c != (Config{BufferSize: 50, BatchSize: 5, FlushInterval: 2 * time.Second, Prices: "m=1/2"}) {
		t.Fatalf("flags gave %+v", c)
	}
	o := defaultOptions()
	for _, opt := range c.Options() {
		opt(&o)
	}
	if o.capacity != 50 || o.batchSize != 5 || o.flushInterval != 2*time.Second {
		t.Fatalf("options gave capacity %d batch %d interval %s", o.capacity, o.batchSize, o.flushInterval)
	}

	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"zero takes defaults", Config{}, true},
		{"defaults", Config{BufferSize: DefaultCapacity, BatchSize: DefaultBatchSize, FlushInterval: DefaultFlushInterval}, true},
		{"negative buffer", Config{BufferSize: -1}, false},
		{"negative batch", Config{BatchSize: -1}, false},
		{"negative interval", Config{FlushInterval: -time.Second}, false},
		{"batch above buffer", Config{BufferSize: 10, BatchSize: 11}, false},
		{"prices", Config{Prices: "gpt-4o-mini=0.15/0.60"}, true},
		{"bad prices", Config{Prices: "gpt-4o-mini=0.15"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestQueryMatch(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	r := Record{Time: at, Tenant: "acme"}
	for _, tc := range []struct {
		name string
		q    Query
		want bool
	}{
		{"any", Query{}, true},
		{"tenant", Query{Tenant: "acme"}, true},
		{"other tenant", Query{Tenant: "globex"}, false},
		{"since equal", Query{Since: at}, true},
		{"since after", Query{Since: at.Add(time.Nanosecond)}, false},
		{"until equal", Query{Until: at}, false},
		{"until after", Query{Until: at.Add(time.Nanosecond)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.q.Match(r); got != tc.want {
				t.Fatalf("Match = %v, want %v", got, tc.want)
			}
		})
	}
}
