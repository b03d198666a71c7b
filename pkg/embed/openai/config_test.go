package openai

import (
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/config"
)

func TestConfigFlags(t *testing.T) {
	var c Config
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	c.RegisterFlags("", fs)
	if err := fs.Parse([]string{"--embed-url=http://localhost:11434/v1", "--embed-model=nomic-embed-text", "--embed-api-key=sk-abc"}); err != nil {
		t.Fatal(err)
	}
	if c.BatchSize != DefaultBatchSize || c.Timeout != DefaultTimeout || c.MaxRetries != DefaultMaxRetries || c.Dimensions != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if got := config.Redact("embed-api-key", fs.Lookup("embed-api-key").Value.String()); got != "<redacted>" {
		t.Fatalf("api key shown as %q", got)
	}
}

func TestConfigValidate(t *testing.T) {
	base := Config{URL: "https://api.openai.com/v1", Model: "text-embedding-3-small", BatchSize: 64, Timeout: time.Second, MaxRetries: 3}
	tests := []struct {
		name   string
		modify func(*Config)
		ok     bool
	}{
		{"valid", func(*Config) {}, true},
		{"disabled", func(c *Config) { *c = Config{} }, true},
		{"no model", func(c *Config) { c.Model = " " }, false},
		{"bad scheme", func(c *Config) { c.URL = "ftp://host/v1" }, false},
		{"no host", func(c *Config) { c.URL = "http:///v1" }, false},
		{"unparsable", func(c *Config) { c.URL = "http://a b:x/" }, false},
		{"negative dimensions", func(c *Config) { c.Dimensions = -1 }, false},
		{"zero batch", func(c *Config) { c.BatchSize = 0 }, false},
		{"huge batch", func(c *Config) { c.BatchSize = 5000 }, false},
		{"zero timeout", func(c *Config) { c.Timeout = 0 }, false},
		{"negative retries", func(c *Config) { c.MaxRetries = -1 }, false},
		{"no retries", func(c *Config) { c.MaxRetries = 0 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.modify(&c)
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	if _, err := New(Config{}, nil, "embedder"); err == nil {
		t.Fatal("New without a URL succeeded")
	}
}

func TestEndpoint(t *testing.T) {
	tests := map[string]string{
		"https://api.openai.com/v1":            "https://api.openai.com/v1/embeddings",
		"http://localhost:11434/v1/":           "http://localhost:11434/v1/embeddings",
		"http://tei:8080/v1/embeddings":        "http://tei:8080/v1/embeddings",
		"http://proxy/openai/v1?api-version=1": "http://proxy/openai/v1/embeddings?api-version=1",
	}
	for in, want := range tests {
		u, err := endpoint(in)
		if err != nil || u.String() != want {
			t.Errorf("endpoint(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}
