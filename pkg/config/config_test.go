package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func newFS() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("nats-url", "", "")
	fs.String("http-addr", "127.0.0.1:7700", "")
	fs.Int("k", 9, "")
	fs.StringSlice("targets", nil, "")
	fs.String("api-key", "", "")
	return fs
}

func TestApplyPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("nats-url: nats://file:4222\nk: 3\nhttp-addr: file:1\ntargets: [a, b]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := newFS()
	if err := fs.Parse([]string{"--http-addr", "flag:1"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"RECOLLECT_K": "5", "RECOLLECT_HTTP_ADDR": "env:1"}
	if err := Apply(fs, file, func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"http-addr": "flag:1", "k": "5", "nats-url": "nats://file:4222", "targets": "[a,b]"} {
		if got := fs.Lookup(name).Value.String(); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestApplyErrorsNameTheSetting(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"unknown key", "nope: 1\n", nil, `unknown setting "nope"`},
		{"bad file value", "k: abc\n", nil, `"k"`},
		{"bad env value", "", map[string]string{"RECOLLECT_K": "x"}, "RECOLLECT_K"},
		{"nested value", "k: {a: 1}\n", nil, `"k" must be a scalar`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".yaml")
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Apply(newFS(), path, func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %s", err, tt.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"api-key", "sk-123", "<redacted>"},
		{"llm-api-key", "", ""},
		{"redis-url", "redis://user:hunter2@host:6379/0", "redis://user:redacted@host:6379/0"},
		{"clickhouse-dsn", "clickhouse://h:9000/db?password=hunter2&x=1", "clickhouse://h:9000/db?password=redacted&x=1"},
		{"nats-url", "nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"llm-url", "https://api.example.com/v1?key=sk-live-123", "https://api.example.com/v1?key=redacted"},
		{"llm-url", "https://h/v1?api-version=2024&api_key=sk-1&model=x", "https://h/v1?api-version=2024&api_key=redacted&model=x"},
		{"qdrant-url", "https://h:6333/?access_token=abc&sig=xyz", "https://h:6333/?access_token=redacted&sig=redacted"},
		{"redis-url", "rediss://:hunter2@host:6380/0?Password=x", "rediss://:redacted@host:6380/0?Password=redacted"},
		{"llm-fallback-urls", "[https://a/v1?key=s1,https://b/v1]", "[https://a/v1?key=redacted,https://b/v1]"},
		{"llm-fallback-api-keys", "[sk-1,sk-2]", "<redacted>"},
		{"api-keys", "[k1]", "<redacted>"},
		{"redis-password", "hunter2", "<redacted>"},
		{"llm-token", "t", "<redacted>"},
		{"api-keys-file", "/etc/recollect/keys", "/etc/recollect/keys"},
		{"extractor-max-tokens", "1024", "1024"},
		{"resume-core-tokens", "300", "300"},
		{"http-addr", "127.0.0.1:7700", "127.0.0.1:7700"},
		{"data-dir", "/var/lib/recollect", "/var/lib/recollect"},
		{"llm-url", "https://api.example.com/v1", "https://api.example.com/v1"},
	}
	for _, tt := range tests {
		if got := Redact(tt.name, tt.value); got != tt.want {
			t.Errorf("Redact(%s, %s) = %s, want %s", tt.name, tt.value, got, tt.want)
		}
	}
}

func TestEnvName(t *testing.T) {
	if got := EnvName("nats-url"); got != "RECOLLECT_NATS_URL" {
		t.Fatal(got)
	}
}
