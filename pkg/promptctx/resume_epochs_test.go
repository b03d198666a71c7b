package promptctx

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// epochKV is the consolidator's epoch bucket on an embedded JetStream.
func epochKV(t *testing.T) jetstream.KeyValue {
	t.Helper()
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	kv, err := consolidate.OpenHistory(context.Background(), b.JetStream())
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// putEpochs writes a tenant's history as the consolidator does: starts
// newest last.
func putEpochs(t *testing.T, kv jetstream.KeyValue, tenant string, agos ...time.Duration) {
	t.Helper()
	var starts []time.Time
	for _, ago := range agos {
		starts = append(starts, testNow.Add(-ago))
	}
	data, _ := json.Marshal(map[string]any{"last_id": "e", "starts": starts, "count": len(starts)})
	if _, err := kv.Put(context.Background(), tenant, data); err != nil {
		t.Fatal(err)
	}
}

func TestResumeRecentByEpochs(t *testing.T) {
	e := newEnv(t)
	written := func(ago time.Duration) func(*memory.Memory) { return withAge(ago) }
	e.put(t,
		mem("Core rule: deploys go through the pipeline.", memory.TypePolicy, withLayer(memory.LayerCore), written(time.Hour)),
		mem("Note from an hour ago.", memory.TypeFact, written(time.Hour)),
		mem("Note from thirty hours ago.", memory.TypeFact, written(30*time.Hour)),
		mem("Note from fifty hours ago.", memory.TypeFact, written(50*time.Hour)),
		mem("Note from eighty hours ago.", memory.TypeFact, written(80*time.Hour)),
		mem("Note from two hundred hours ago.", memory.TypeFact, written(200*time.Hour)),
	)
	kv := epochKV(t)
	assembler := func(t *testing.T, mod func(*Config)) *Assembler {
		cfg := DefaultConfig()
		if mod != nil {
			mod(&cfg)
		}
		a, err := New(cfg, e.st, nil, e.trees, domains.Builtin(), loadBPE(t), func() time.Time { return testNow },
			WithLogger(slog.New(slog.DiscardHandler)),
			WithEpochHistory(func(ctx context.Context, tenant string) ([]time.Time, error) {
				return consolidate.EpochStarts(ctx, kv, tenant)
			}))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	hours := []string{"an hour", "thirty hours", "fifty hours", "eighty hours", "two hundred hours"}
	tests := []struct {
		name   string
		epochs []time.Duration // ago, oldest first; nil: no history
		broken bool
		mod    func(*Config)
		recent int // the first n of hours
		title  string
	}{
		{"no epoch yet: the window", nil, false, nil, 1, "24h"},
		{"the last three epochs", []time.Duration{100 * time.Hour, 60 * time.Hour, 40 * time.Hour, 3 * time.Hour}, false, nil, 3, "60h"},
		{"fewer epochs than asked: back to the first", []time.Duration{40 * time.Hour}, false, nil, 2, "40h"},
		{"fewer epochs than asked, all within the window", []time.Duration{2 * time.Hour}, false, nil, 1, "24h"},
		{"one epoch asked", []time.Duration{100 * time.Hour, 60 * time.Hour, 40 * time.Hour, 3 * time.Hour}, false,
			func(c *Config) { c.RecentEpochs = 1 }, 1, "3h"},
		{"epochs off", []time.Duration{100 * time.Hour}, false, func(c *Config) { c.RecentEpochs = 0 }, 1, "24h"},
		{"unreadable history: the window", nil, true, nil, 1, "24h"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tenant := "acme"
			switch {
			case tt.broken:
				if _, err := kv.Put(context.Background(), tenant, []byte("{broken")); err != nil {
					t.Fatal(err)
				}
			case tt.epochs != nil:
				putEpochs(t, kv, tenant, tt.epochs...)
			default:
				_ = kv.Purge(context.Background(), tenant)
			}
			resp, err := assembler(t, tt.mod).Resume(context.Background(), ResumeRequest{Tenant: tenant})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range resp.Recent {
				got = append(got, m.Content)
			}
			var want []string
			for _, h := range hours[:tt.recent] {
				want = append(want, "Note from "+h+" ago.")
			}
			if !slices.Equal(got, want) {
				t.Fatalf("case %d: recent %q, want %q", i, got, want)
			}
			if !strings.Contains(resp.Text, "=== Recent ("+tt.title+") ===\n") {
				t.Fatalf("title not %q:\n%s", tt.title, resp.Text)
			}
		})
	}
}

func TestResumeConfig(t *testing.T) {
	c := DefaultConfig()
	if c.RecentEpochs != 3 || c.CompressTimeout <= 0 {
		t.Fatalf("defaults: %d epochs, compress timeout %s", c.RecentEpochs, c.CompressTimeout)
	}
	for name, mod := range map[string]func(*Config){
		"negative epochs":  func(c *Config) { c.RecentEpochs = -1 },
		"no compress time": func(c *Config) { c.CompressTimeout = 0 },
	} {
		c := DefaultConfig()
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: valid", name)
		}
	}
}
