package remote

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestConfig(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var cfg Config
	cfg.RegisterFlags("", fs)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if s := newSettings(cfg.Options()); s.prefix != DefaultSubjectPrefix || s.timeout != DefaultRequestTimeout ||
		s.maxInFlight != DefaultMaxInFlight || s.pageSize != 256 {
		t.Fatalf("defaults give settings %+v", s)
	}
	if err := fs.Parse([]string{"--store-remote-subject-prefix=a.b", "--store-remote-timeout=3s", "--store-remote-max-in-flight=7"}); err != nil {
		t.Fatal(err)
	}
	if s := newSettings(cfg.Options()); s.prefix != "a.b" || s.timeout != 3*time.Second || s.maxInFlight != 7 {
		t.Fatalf("flags give settings %+v", s)
	}

	bad := map[string]func(*Config){
		"empty prefix":    func(c *Config) { c.SubjectPrefix = "" },
		"wildcard":        func(c *Config) { c.SubjectPrefix = "a.*" },
		"tail wildcard":   func(c *Config) { c.SubjectPrefix = "a.>" },
		"empty token":     func(c *Config) { c.SubjectPrefix = "a..b" },
		"trailing dot":    func(c *Config) { c.SubjectPrefix = "a." },
		"space":           func(c *Config) { c.SubjectPrefix = "a b" },
		"zero timeout":    func(c *Config) { c.RequestTimeout = 0 },
		"no handlers":     func(c *Config) { c.MaxInFlight = 0 },
		"negative budget": func(c *Config) { c.MaxInFlight = -1 },
	}
	for name, spoil := range bad {
		t.Run(name, func(t *testing.T) {
			c := Config{SubjectPrefix: DefaultSubjectPrefix, RequestTimeout: time.Second, MaxInFlight: 1}
			spoil(&c)
			if err := c.Validate(); err == nil {
				t.Fatalf("Validate accepted %+v", c)
			}
		})
	}
}

func TestOptionsIgnoreNonsense(t *testing.T) {
	s := newSettings([]Option{nil, WithRequestTimeout(-1), WithMaxInFlight(0), WithScrollPageSize(-5)})
	if s.timeout != DefaultRequestTimeout || s.maxInFlight != DefaultMaxInFlight || s.pageSize != DefaultScrollPageSize {
		t.Fatalf("settings %+v, want defaults", s)
	}
	if s := newSettings([]Option{WithScrollPageSize(1 << 20)}); s.pageSize != maxScrollPageSize {
		t.Fatalf("page size %d, want capped at %d", s.pageSize, maxScrollPageSize)
	}
	if c := NewClient(nil, WithSubjectPrefix("bad.>")); c.cfg.prefix != DefaultSubjectPrefix {
		t.Fatalf("client kept invalid prefix %q", c.cfg.prefix)
	}
}
