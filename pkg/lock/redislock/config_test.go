package redislock

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/testserver"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		wantErr bool
	}{
		{name: "empty means in-process", url: ""},
		{name: "plain", url: "redis://127.0.0.1:6379/0"},
		{name: "tls with options", url: "rediss://user:pw@redis.example:6380/2?dial_timeout=2s&pool_size=20"},
		{name: "wrong scheme", url: "http://127.0.0.1:6379", wantErr: true},
		{name: "bad db", url: "redis://127.0.0.1:6379/notadb", wantErr: true},
		{name: "unknown option", url: "redis://127.0.0.1:6379/0?no_such_option=1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{URL: tt.url}
			if err := cfg.Validate(); (err != nil) != tt.wantErr {
				t.Fatalf("Validate(%q) = %v, wantErr %v", tt.url, err, tt.wantErr)
			}
		})
	}
}

func TestConfigErrorHidesPassword(t *testing.T) {
	cfg := Config{URL: "redis://user:s3cret@[::1/0"}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("Validate accepted a malformed url")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error leaks the password: %v", err)
	}
}

func TestConfigRegisterFlags(t *testing.T) {
	for _, prefix := range []string{"", "lock."} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			var cfg Config
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			cfg.RegisterFlags(prefix, fs)
			if err := fs.Parse([]string{"--" + prefix + "redis-url=redis://10.0.0.1:6379/3"}); err != nil {
				t.Fatalf("parse: %v", err)
			}
			if cfg.URL != "redis://10.0.0.1:6379/3" {
				t.Fatalf("URL = %q", cfg.URL)
			}
			if f := fs.Lookup(prefix + "redis-url"); f == nil || f.Usage == "" || f.DefValue != "" {
				t.Fatalf("flag %q missing, undocumented or with a non-empty default", prefix+"redis-url")
			}
		})
	}
}

func TestNewClient(t *testing.T) {
	if _, err := NewClient(Config{}); err == nil {
		t.Fatal("NewClient accepted an empty url")
	}
	if _, err := NewClient(Config{URL: "http://x"}); err == nil {
		t.Fatal("NewClient accepted a non-redis url")
	}
	c := newClient(t, testserver.RedisURL(t))
	if !c.Options().ContextTimeoutEnabled {
		t.Fatal("client ignores context deadlines")
	}
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("ping: %v", err)
	}
}
