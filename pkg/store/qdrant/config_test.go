package qdrant

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestRegisterFlags(t *testing.T) {
	var c Config
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	c.RegisterFlags("", fs)
	for _, name := range []string{"qdrant-api-key", "qdrant-collection", "qdrant-tls", "qdrant-timeout"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s is not registered", name)
		}
	}
	if fs.Lookup("qdrant-addr") != nil {
		t.Error("--qdrant-addr is registered here, but the app owns it")
	}
	if c != DefaultConfig() {
		t.Errorf("flag defaults = %+v, want %+v", c, DefaultConfig())
	}
	if err := fs.Parse([]string{"--qdrant-api-key=k", "--qdrant-collection=mem_", "--qdrant-tls", "--qdrant-timeout=3s"}); err != nil {
		t.Fatal(err)
	}
	want := Config{APIKey: "k", CollectionPrefix: "mem_", UseTLS: true, Timeout: 3 * time.Second}
	if c != want {
		t.Errorf("parsed = %+v, want %+v", c, want)
	}
	prefixed := pflag.NewFlagSet("t", pflag.ContinueOnError)
	new(Config).RegisterFlags("x-", prefixed)
	if prefixed.Lookup("x-qdrant-timeout") == nil {
		t.Error("prefix not applied")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		err  string // "" = valid
	}{
		{"defaults", func(c *Config) {}, ""},
		{"empty prefix", func(c *Config) { c.CollectionPrefix = "" }, ""},
		{"api key and tls", func(c *Config) { c.APIKey, c.UseTLS = "secret", true }, ""},
		{"zero timeout", func(c *Config) { c.Timeout = 0 }, "qdrant-timeout"},
		{"negative timeout", func(c *Config) { c.Timeout = -time.Second }, "qdrant-timeout"},
		{"slash in prefix", func(c *Config) { c.CollectionPrefix = "a/b" }, "qdrant-collection"},
		{"space in prefix", func(c *Config) { c.CollectionPrefix = "a b" }, "qdrant-collection"},
		{"long prefix", func(c *Config) { c.CollectionPrefix = strings.Repeat("p", maxPrefixLen+1) }, "qdrant-collection"},
		{"newline in key", func(c *Config) { c.APIKey = "a\nb" }, "qdrant-api-key"},
		{"tls files and tls", func(c *Config) { c.UseTLS, c.TLS.CA = true, "/etc/ca.pem" }, ""},
		{"tls files without tls", func(c *Config) { c.TLS.CA = "/etc/ca.pem" }, "need --qdrant-tls"},
		{"tls key without cert", func(c *Config) { c.UseTLS, c.TLS.Key = true, "/etc/k.pem" }, "qdrant-tls-cert-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one naming %s", err, tc.err)
			}
		})
	}
}

func TestCollectionName(t *testing.T) {
	for _, tc := range []struct {
		prefix, model string
		dim           int
		want          string
	}{
		{"recollect_", "all-MiniLM-L6-v2", 384, "recollect_all-minilm-l6-v2_384"},
		{"recollect_", "sentence-transformers/all-MiniLM-L6-v2", 384, "recollect_sentence-transformers_all-minilm-l6-v2_384"},
		{"", "text-embedding-3-small", 1536, "text-embedding-3-small_1536"},
		{"m_", "nomic-embed-text:v1.5", 768, "m_nomic-embed-text_v1_5_768"},
		{"m_", "  a // b  ", 8, "m_a_b_8"},
		{"m_", "é模型", 8, "m_model_8"},
		{"m_", "", 8, "m_model_8"},
	} {
		if got := CollectionName(tc.prefix, tc.model, tc.dim); got != tc.want {
			t.Errorf("CollectionName(%q, %q, %d) = %q, want %q", tc.prefix, tc.model, tc.dim, got, tc.want)
		}
	}
	long := CollectionName(strings.Repeat("p", maxPrefixLen), strings.Repeat("m", 1000), 1<<20)
	if len(long) > 255 {
		t.Errorf("name of %d bytes exceeds Qdrant's 255", len(long))
	}
}

func TestSiblingNames(t *testing.T) {
	own := CollectionName(DefaultCollectionPrefix, "all-MiniLM-L6-v2", 384)
	names := []string{
		own,
		"recollect_text-embedding-3-small_1536", // another model: a sibling
		"recollect_nomic-embed-text_768",        // another one
		"recollect_test_1234abcd_storetest_8",   // matches the shape too (same prefix)
		"recollect_notes",                       // no dimension suffix
		"other_minilm_384",                      // another prefix
		"recollect_UPPER_384",                   // CollectionName lowercases
	}
	got := siblingNames(DefaultCollectionPrefix, own, names)
	want := []string{"recollect_nomic-embed-text_768", "recollect_test_1234abcd_storetest_8", "recollect_text-embedding-3-small_1536"}
	if !slices.Equal(got, want) {
		t.Fatalf("siblings %v, want %v", got, want)
	}
}
