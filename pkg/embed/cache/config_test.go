package cache

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"
)

func TestConfigDefaultsAndValidate(t *testing.T) {
	var def Config
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	def.RegisterFlags("", fs)
	if def.Kind != KindAuto || def.MaxBytes != DefaultMaxBytes || def.TTL != DefaultTTL || def.Timeout != DefaultTimeout {
		t.Fatalf("defaults: %+v", def)
	}
	tests := []struct {
		name   string
		modify func(*Config)
		ok     bool
	}{
		{"defaults", func(*Config) {}, true},
		{"off", func(c *Config) { c.Kind = KindOff }, true},
		{"entries only", func(c *Config) { c.MaxBytes, c.MaxEntries = 0, 1000 }, true},
		{"unknown kind", func(c *Config) { c.Kind = "disk" }, false},
		{"unbounded memory", func(c *Config) { c.Kind, c.MaxBytes = KindMemory, 0 }, false},
		{"unbounded is fine for redis", func(c *Config) { c.Kind, c.MaxBytes = KindRedis, 0 }, true},
		{"negative bytes", func(c *Config) { c.MaxBytes = -1 }, false},
		{"negative ttl", func(c *Config) { c.TTL = -1 }, false},
		{"negative timeout", func(c *Config) { c.Timeout = -1 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := def
			tc.modify(&c)
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestNewBackend(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled here
	t.Cleanup(func() { client.Close() })
	tests := []struct {
		kind   string
		client redis.UniversalClient
		want   string // "lru", "redis", "none", "error"
	}{
		{KindAuto, nil, "lru"},
		{KindAuto, client, "redis"},
		{KindMemory, client, "lru"},
		{KindRedis, client, "redis"},
		{KindRedis, nil, "error"},
		{KindOff, client, "none"},
	}
	for _, tc := range tests {
		t.Run(tc.kind+"/"+tc.want, func(t *testing.T) {
			b, err := NewBackend(Config{Kind: tc.kind, MaxBytes: DefaultMaxBytes}, tc.client)
			got := "error"
			switch b.(type) {
			case *LRU:
				got = "lru"
			case *Redis:
				got = "redis"
			case nil:
				if err == nil {
					got = "none"
				}
			}
			if got != tc.want {
				t.Fatalf("NewBackend(%s) = %T, %v; want %s", tc.kind, b, err, tc.want)
			}
		})
	}
}
