package llm_test

import (
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/llm"
)

func TestConfigFlags(t *testing.T) {
	var c llm.Config
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	c.RegisterFlags("", fs)
	if c.Model != llm.DefaultModel || c.Timeout != llm.DefaultTimeout || c.MaxRetries != llm.DefaultMaxRetries ||
		c.TenantConcurrency != llm.DefaultTenantConcurrency || c.JSONMode != llm.JSONAuto || c.EffectiveLevel() != llm.LevelOff {
		t.Fatalf("defaults %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	err := fs.Parse([]string{
		"--llm-url=http://localhost:11434/v1", "--llm-api-key=sk", "--llm-model=m",
		"--llm-model-extract=big", "--llm-model-audit=careful",
		"--llm-fallback-urls=,https://api.example.com/v1", "--llm-fallback-models=bigger,gpt", "--llm-fallback-api-keys=,sk2",
		"--llm-json-mode=off", "--llm-timeout=5s", "--llm-max-retries=1", "--llm-tenant-concurrency=9",
	})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if c.URL != "http://localhost:11434/v1" || c.APIKey != "sk" || c.Model != "m" || c.JSONMode != llm.JSONOff ||
		c.Timeout != 5*time.Second || c.MaxRetries != 1 || c.TenantConcurrency != 9 || c.EffectiveLevel() != llm.LevelAuto {
		t.Fatalf("parsed %+v", c)
	}
	if c.ModelFor(llm.TierExtract) != "big" || c.ModelFor(llm.TierAudit) != "careful" || c.ModelFor(llm.TierGate) != "m" {
		t.Fatalf("tier models %v", c.Models)
	}
	if !slices.Equal(c.FallbackURLs, []string{"", "https://api.example.com/v1"}) ||
		!slices.Equal(c.FallbackModels, []string{"bigger", "gpt"}) || !slices.Equal(c.FallbackAPIKeys, []string{"", "sk2"}) {
		t.Fatalf("fallbacks %q %q %q", c.FallbackURLs, c.FallbackModels, c.FallbackAPIKeys)
	}
	for _, tr := range llm.Tiers() {
		if fs.Lookup("llm-model-"+string(tr)) == nil {
			t.Fatalf("no flag for tier %s", tr)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	const u = "http://localhost:11434/v1"
	for _, tc := range []struct {
		name string
		cfg  llm.Config
		ok   bool
	}{
		{"zero is off", llm.Config{}, true},
		{"url gives auto", llm.Config{URL: u, Model: "m"}, true},
		{"full", llm.Config{URL: u, Model: "m", Level: llm.LevelFull}, true},
		{"on without url", llm.Config{Level: llm.LevelAuto, Model: "m"}, false},
		{"bad level", llm.Config{URL: u, Model: "m", Level: "sometimes"}, false},
		{"bad json mode", llm.Config{URL: u, Model: "m", JSONMode: "maybe"}, false},
		{"bad url", llm.Config{URL: "localhost:11434", Model: "m"}, false},
		{"no model", llm.Config{URL: u}, false},
		{"unknown tier", llm.Config{URL: u, Model: "m", Models: map[llm.Tier]string{"poetry": "x"}}, false},
		{"fallback without primary", llm.Config{FallbackURLs: []string{u}}, false},
		{"bad fallback url", llm.Config{URL: u, Model: "m", FallbackURLs: []string{"ftp://x"}}, false},
		{"more keys than fallbacks", llm.Config{URL: u, Model: "m", FallbackModels: []string{"a"}, FallbackAPIKeys: []string{"k", "k2"}}, false},
		{"negative timeout", llm.Config{URL: u, Model: "m", Timeout: -time.Second}, false},
		{"negative retries", llm.Config{URL: u, Model: "m", MaxRetries: -1}, false},
		{"negative concurrency", llm.Config{URL: u, Model: "m", TenantConcurrency: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
			if _, err := llm.New(tc.cfg, nil, nil); (err == nil) != tc.ok {
				t.Fatalf("New() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
