package promptctx

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestConfig(t *testing.T) {
	d := DefaultConfig()
	if err := d.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if d.Budget != 800 || d.HalfLife != 90*24*time.Hour || d.Procedures != 3 || d.MinConfidence != 0.65 || d.PerDomain != 3 || d.MaxContextual != 9 {
		t.Fatalf("defaults differ from the seeds: %+v", d)
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var c Config
	c.RegisterFlags("query-", fs)
	if err := fs.Parse([]string{"--query-context-budget=1200", "--query-resume-recent-window=48h"}); err != nil {
		t.Fatal(err)
	}
	if c.Budget != 1200 || c.RecentWindow != 48*time.Hour {
		t.Fatalf("flags not applied: %+v", c)
	}
	for name, mod := range map[string]func(*Config){
		"budget zero":         func(c *Config) { c.Budget = 0 },
		"budget over max":     func(c *Config) { c.Budget = c.MaxBudget + 1 },
		"importance":          func(c *Config) { c.BaselineImportance = 1.5 },
		"per domain":          func(c *Config) { c.PerDomain = 0 },
		"recall k":            func(c *Config) { c.RecallK = 101 },
		"half-life":           func(c *Config) { c.HalfLife = 0 },
		"scope boost":         func(c *Config) { c.ScopeBoost = 0.5 },
		"confidence":          func(c *Config) { c.MinConfidence = -0.1 },
		"negative procedures": func(c *Config) { c.Procedures = -1 },
		"resume all zero": func(c *Config) {
			c.ResumeCore, c.ResumeRecent, c.ResumeTopics, c.ResumeTriggers = 0, 0, 0, 0
		},
		"recent window": func(c *Config) { c.RecentWindow = 0 },
	} {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			mod(&c)
			if err := c.Validate(); err == nil {
				t.Fatalf("%+v validated", c)
			}
		})
	}
}

func TestNewRequires(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	if _, err := New(cfg, nil, nil, nil, e.a.domains, e.a.tok, e.a.now); err == nil {
		t.Fatal("nil store accepted")
	}
	if _, err := New(cfg, e.st, nil, nil, e.a.domains, nil, e.a.now); err == nil {
		t.Fatal("nil tokenizer accepted")
	}
	cfg.Budget = -1
	if _, err := New(cfg, e.st, nil, nil, e.a.domains, e.a.tok, e.a.now); err == nil {
		t.Fatal("bad config accepted")
	}
}
